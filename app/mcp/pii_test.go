package mcp

import (
	"testing"
	"unicode/utf8"
)

var piiTests = []struct{ in, want string }{
	{"write to ann@example.com or Bob.Smith+tag@mail.example.co.uk", "write to [EMAIL_1] or [EMAIL_2]"},
	{"ann@example.com and ANN@example.com", "[EMAIL_1] and [EMAIL_1]"},
	{"not an address: a@b, @example.com, x@y.z", "not an address: a@b, @example.com, x@y.z"},
	// Cards: Luhn-valid numbers of a brand's shape.
	{"visa 4111111111111111 mc 5555-5555-5555-4444 amex 3782 822463 10005", "visa [CARD_1] mc [CARD_2] amex [CARD_3]"},
	{"same 4111 1111 1111 1111 and 4111-1111-1111-1111", "same [CARD_1] and [CARD_1]"},
	{"luhn fails 4111111111111112", "luhn fails 4111111111111112"},
	{"no brand 1234567812345670, timestamp 1700000000000", "no brand 1234567812345670, timestamp 1700000000000"},
	{"inside a word x4111111111111111 or 4111111111111111x or 3.4111111111111111", "inside a word x4111111111111111 or 4111111111111111x or 3.4111111111111111"},
	{"too long 41111111111111111111111", "too long 41111111111111111111111"},
	// IBANs: mod-97 and the country's length.
	{"iban DE89 3704 0044 0532 0130 00 ok", "iban [IBAN_1] ok"},
	{"GB82WEST12345698765432, fr FR1420041010050500013M02606", "[IBAN_1], fr [IBAN_2]"},
	{"bad check DE88370400440532013000", "bad check DE88370400440532013000"},
	{"bad length DE8937040044053201300", "bad length DE8937040044053201300"},
	{"no country ZZ89370400440532013000", "no country ZZ89370400440532013000"},
	// National ids.
	{"ssn 123-45-6789, not 000-12-3456 or 666-12-3456 or 900-12-3456 or 123-00-4567", "ssn [SSN_1], not 000-12-3456 or 666-12-3456 or 900-12-3456 or 123-00-4567"},
	{"phone 555-123-4567, part 1123-45-6789", "phone 555-123-4567, part 1123-45-6789"},
	{"cpf 529.982.247-25, bad 529.982.247-24, same 111.111.111-11", "cpf [CPF_1], bad 529.982.247-24, same 111.111.111-11"},
	{"cnpj 11.222.333/0001-81, bad 11.222.333/0001-82", "cnpj [CNPJ_1], bad 11.222.333/0001-82"},
	{"nothing here 12345", "nothing here 12345"},
}

func TestRedactPII(t *testing.T) {
	for _, tt := range piiTests {
		if got := RedactPII(tt.in); got != tt.want {
			t.Errorf("RedactPII(%q)\n = %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestPIINumberedAcrossStrings(t *testing.T) {
	p := newPIIRedactor()
	a := p.redact("from ann@example.com")
	b := p.redact("to bob@example.com, cc ann@example.com")
	if a != "from [EMAIL_1]" || b != "to [EMAIL_2], cc [EMAIL_1]" {
		t.Errorf("got %q, %q", a, b)
	}
}

func TestChecks(t *testing.T) {
	for _, n := range []string{"4111111111111111", "79927398713", "5555555555554444", "378282246310005"} {
		if !luhn([]byte(n)) {
			t.Errorf("luhn(%s) is false", n)
		}
	}
	for _, n := range []string{"4111111111111112", "79927398710", "0000000000000"} {
		if luhn([]byte(n)) {
			t.Errorf("luhn(%s) is true", n)
		}
	}
	for _, iban := range []string{"DE89370400440532013000", "GB82WEST12345698765432", "NL91ABNA0417164300", "BE68539007547034", "NO9386011117947"} {
		if !mod97([]byte(iban)) {
			t.Errorf("mod97(%s) is false", iban)
		}
		if len(iban) != ibanLength[iban[:2]] {
			t.Errorf("%s: length %d, table %d", iban, len(iban), ibanLength[iban[:2]])
		}
	}
	if mod97([]byte("DE89370400440532013001")) {
		t.Error("mod97 took a bad IBAN")
	}
}

func FuzzRedactPII(f *testing.F) {
	for _, tt := range piiTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := RedactPII(s)
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("RedactPII(%q) = %q is not UTF-8", s, out)
		}
		// What was found is gone.
		found := map[string]bool{}
		for _, sp := range allSpans(s) {
			found[sp.kind+sp.norm] = true
		}
		for _, sp := range allSpans(out) {
			if found[sp.kind+sp.norm] {
				t.Fatalf("RedactPII(%q) = %q still holds %s %s", s, out, sp.kind, sp.norm)
			}
		}
	})
}

func allSpans(s string) []piiSpan {
	var spans []piiSpan
	spans = findEmails(s, spans)
	spans = findCards(s, spans)
	spans = findIBANs(s, spans)
	return findIDs(s, spans)
}
