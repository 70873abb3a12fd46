package mcp

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// RedactPII returns s with personal data replaced by numbered
// placeholders, as Pepe's pii_redact hook does: e-mail addresses
// ("[EMAIL_1]"), payment card numbers that pass the Luhn check and start
// as a card brand's do ("[CARD_1]"), IBANs of a known country's length
// that pass the mod-97 check ("[IBAN_1]"), and national ids: US social
// security numbers written 123-45-6789 with a valid area, group and
// serial ("[SSN_1]"), Brazilian CPF and CNPJ numbers in their written
// form with valid check digits ("[CPF_1]", "[CNPJ_1]"). The same value
// gets the same placeholder; numbers count from 1 for each kind.
//
// Unlike Pepe's, the redaction is one way: the proxy keeps no table to
// put the values back. A number that fails its check is left as it is,
// so an order number or a timestamp is not taken for a card.
func RedactPII(s string) string { return newPIIRedactor().redact(s) }

// piiRedactor numbers the values it replaces across every string of one
// message.
type piiRedactor struct {
	seen  map[string]string // kind + "\x00" + normalized value → placeholder
	count map[string]int    // kind → placeholders given
}

func newPIIRedactor() *piiRedactor {
	return &piiRedactor{seen: map[string]string{}, count: map[string]int{}}
}

// piiSpan is one value found: s[start:end], of kind, normalized to norm.
type piiSpan struct {
	start, end int
	kind, norm string
}

// redact replaces the personal data in s.
func (p *piiRedactor) redact(s string) string {
	if !mayHoldPII(s) {
		return s
	}
	var spans []piiSpan
	spans = findEmails(s, spans)
	spans = findCards(s, spans)
	spans = findIBANs(s, spans)
	spans = findIDs(s, spans)
	if len(spans) == 0 {
		return s
	}
	sort.SliceStable(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start < spans[j].start
		}
		return spans[i].end > spans[j].end
	})
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		if sp.start < last {
			continue // inside one already replaced
		}
		b.WriteString(s[last:sp.start])
		b.WriteString(p.placeholder(sp.kind, sp.norm))
		last = sp.end
	}
	b.WriteString(s[last:])
	return b.String()
}

func (p *piiRedactor) placeholder(kind, norm string) string {
	key := kind + "\x00" + norm
	if ph, ok := p.seen[key]; ok {
		return ph
	}
	p.count[kind]++
	ph := "[" + kind + "_" + strconv.Itoa(p.count[kind]) + "]"
	p.seen[key] = ph
	return ph
}

// mayHoldPII is a cheap test: every kind has an '@' or at least 9
// digits.
func mayHoldPII(s string) bool {
	if strings.IndexByte(s, '@') >= 0 {
		return true
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			if n++; n >= 9 {
				return true
			}
		}
	}
	return false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isAlnum(c byte) bool {
	return isDigit(c) || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || c == '_'
}

var emailRE = lazyRegexp(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`)

func findEmails(s string, spans []piiSpan) []piiSpan {
	if strings.IndexByte(s, '@') < 0 {
		return spans
	}
	for _, m := range emailRE().FindAllStringIndex(s, -1) {
		start, end := m[0], m[1]
		// A local part does not start or end with a dot.
		for start < end && s[start] == '.' {
			start++
		}
		at := strings.IndexByte(s[start:end], '@')
		if at <= 0 || s[start+at-1] == '.' {
			continue
		}
		spans = append(spans, piiSpan{start, end, "EMAIL", strings.ToLower(s[start:end])})
	}
	return spans
}

// findCards finds runs of 13 to 19 digits, maybe in groups split by
// single spaces or hyphens, that stand on their own, start as a card
// brand's numbers do and pass the Luhn check.
func findCards(s string, spans []piiSpan) []piiSpan {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) || (i > 0 && (isAlnum(s[i-1]) || s[i-1] == '.' || s[i-1] == ',')) {
			continue
		}
		// The run: digits, with one separator at most between two.
		digits := make([]byte, 0, 19)
		j := i
		for j < len(s) && len(digits) <= 19 {
			if isDigit(s[j]) {
				digits = append(digits, s[j])
				j++
				continue
			}
			if (s[j] == ' ' || s[j] == '-') && j+1 < len(s) && isDigit(s[j+1]) {
				j++
				continue
			}
			break
		}
		end := j
		next := i + 1
		for next < len(s) && isDigit(s[next]) {
			next++
		}
		if len(digits) >= 13 && len(digits) <= 19 && !(end < len(s) && (isAlnum(s[end]) || (s[end] == '.' && end+1 < len(s) && isDigit(s[end+1])))) &&
			cardBrand(digits) && luhn(digits) {
			spans = append(spans, piiSpan{i, end, "CARD", string(digits)})
			next = end
		}
		i = next - 1
	}
	return spans
}

// cardBrand reports whether d starts as the numbers of a card brand do,
// with a length that brand uses: Visa, Mastercard, American Express,
// Discover, Diners Club, JCB, UnionPay, Maestro.
func cardBrand(d []byte) bool {
	n := len(d)
	p2, _ := strconv.Atoi(string(d[:2]))
	p4, _ := strconv.Atoi(string(d[:4]))
	switch {
	case d[0] == '4':
		return n == 13 || n == 16 || n == 19
	case p2 >= 51 && p2 <= 55, p4 >= 2221 && p4 <= 2720:
		return n == 16
	case p2 == 34 || p2 == 37:
		return n == 15
	case p2 == 36 || p2 == 38 || p2 == 39 || (p2 == 30):
		return n >= 14 && n <= 19
	case p4 >= 3528 && p4 <= 3589:
		return n >= 16 && n <= 19
	case d[0] == '6', p2 == 50, p2 >= 56 && p2 <= 58:
		return n >= 12 && n <= 19
	}
	return false
}

// luhn reports whether the digits d pass the Luhn check.
func luhn(d []byte) bool {
	sum := 0
	double := false
	for i := len(d) - 1; i >= 0; i-- {
		v := int(d[i] - '0')
		if double {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
		double = !double
	}
	same := true
	for _, c := range d {
		if c != d[0] {
			same = false
		}
	}
	return sum%10 == 0 && !same
}

// ibanLength is the length of an IBAN in each country that has one.
var ibanLength = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29,
	"BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28, "EE": 20, "EG": 29,
	"ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28,
	"HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20,
	"LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19,
	"MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29,
	"RO": 24, "RS": 22, "SA": 24, "SC": 31, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "ST": 25, "SV": 28,
	"TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

func isLetter(c byte) bool { c = upper(c); return 'A' <= c && c <= 'Z' }

// findIBANs finds IBANs: a country code, two check digits and the rest
// of the country's length, maybe in groups split by single spaces,
// standing on their own and passing the mod-97 check.
func findIBANs(s string, spans []piiSpan) []piiSpan {
	for i := 0; i+15 <= len(s); i++ {
		if !isLetter(s[i]) || !isLetter(s[i+1]) || !isDigit(s[i+2]) || !isDigit(s[i+3]) || (i > 0 && isAlnum(s[i-1])) {
			continue
		}
		n, ok := ibanLength[string([]byte{upper(s[i]), upper(s[i+1])})]
		if !ok {
			continue
		}
		iban := make([]byte, 0, n)
		j := i
		for j < len(s) && len(iban) < n {
			c := s[j]
			switch {
			case isDigit(c) || isLetter(c):
				iban = append(iban, upper(c))
				j++
				continue
			case c == ' ' && len(iban) >= 4 && j+1 < len(s) && (isDigit(s[j+1]) || isLetter(s[j+1])):
				j++
				continue
			}
			break
		}
		if len(iban) != n || (j < len(s) && isAlnum(s[j])) || !mod97(iban) {
			continue
		}
		spans = append(spans, piiSpan{i, j, "IBAN", string(iban)})
		i = j - 1
	}
	return spans
}

// mod97 reports whether the IBAN iban (upper case, no spaces) passes its
// check: moved four places round and read with A=10 ... Z=35, it leaves
// 1 when divided by 97.
func mod97(iban []byte) bool {
	r := 0
	for k := range iban {
		c := iban[(k+4)%len(iban)]
		switch {
		case isDigit(c):
			r = (r*10 + int(c-'0')) % 97
		case 'A' <= c && c <= 'Z':
			r = (r*100 + int(c-'A') + 10) % 97
		default:
			return false
		}
	}
	return r == 1
}

var (
	ssnRE  = lazyRegexp(`\d{3}-\d{2}-\d{4}`)
	cpfRE  = lazyRegexp(`\d{3}\.\d{3}\.\d{3}-\d{2}`)
	cnpjRE = lazyRegexp(`\d{2}\.\d{3}\.\d{3}/\d{4}-\d{2}`)
)

// findIDs finds national ids in their written forms.
func findIDs(s string, spans []piiSpan) []piiSpan {
	for _, id := range []struct {
		re    func() *regexp.Regexp
		kind  string
		valid func(d []byte) bool
	}{
		{ssnRE, "SSN", validSSN},
		{cpfRE, "CPF", validCPF},
		{cnpjRE, "CNPJ", validCNPJ},
	} {
		for _, m := range id.re().FindAllStringIndex(s, -1) {
			start, end := m[0], m[1]
			if (start > 0 && (isAlnum(s[start-1]) || s[start-1] == '-' || s[start-1] == '.' || s[start-1] == '/')) ||
				(end < len(s) && (isAlnum(s[end]) || (s[end] == '-' || s[end] == '.' || s[end] == '/') && end+1 < len(s) && isDigit(s[end+1]))) {
				continue
			}
			d := onlyDigits(s[start:end])
			if id.valid(d) {
				spans = append(spans, piiSpan{start, end, id.kind, string(d)})
			}
		}
	}
	return spans
}

func onlyDigits(s string) []byte {
	d := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			d = append(d, s[i])
		}
	}
	return d
}

// validSSN reports whether d (9 digits) can be a US social security
// number: area 001-899 but 666, group not 00, serial not 0000.
func validSSN(d []byte) bool {
	area, _ := strconv.Atoi(string(d[:3]))
	group, _ := strconv.Atoi(string(d[3:5]))
	serial, _ := strconv.Atoi(string(d[5:]))
	return area > 0 && area != 666 && area < 900 && group > 0 && serial > 0
}

// validCPF checks a Brazilian CPF's two check digits.
func validCPF(d []byte) bool {
	if len(d) != 11 || allSame(d) {
		return false
	}
	for _, n := range []int{9, 10} {
		sum := 0
		for i := 0; i < n; i++ {
			sum += int(d[i]-'0') * (n + 1 - i)
		}
		r := sum * 10 % 11
		if r == 10 {
			r = 0
		}
		if r != int(d[n]-'0') {
			return false
		}
	}
	return true
}

// validCNPJ checks a Brazilian CNPJ's two check digits.
func validCNPJ(d []byte) bool {
	if len(d) != 14 || allSame(d) {
		return false
	}
	weights := []int{6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2}
	for _, n := range []int{12, 13} {
		w := weights[13-n:]
		sum := 0
		for i := 0; i < n; i++ {
			sum += int(d[i]-'0') * w[i]
		}
		r := sum % 11
		dv := 0
		if r >= 2 {
			dv = 11 - r
		}
		if dv != int(d[n]-'0') {
			return false
		}
	}
	return true
}

func allSame(d []byte) bool {
	for _, c := range d {
		if c != d[0] {
			return false
		}
	}
	return true
}
