package quietlocale

import "testing"

func TestNeedsQuiet(t *testing.T) {
	for v, want := range map[string]bool{
		"C.UTF-8": true, "C.utf8": true, "POSIX.UTF-8": true, "C@euro": true,
		"C": false, "POSIX": false, "": false, "en_US.UTF-8": false, "de_DE@euro": false, "Cy_GB.UTF-8": false,
	} {
		if got := NeedsQuiet(v); got != want {
			t.Errorf("NeedsQuiet(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestDeciding(t *testing.T) {
	env := map[string]string{"LANG": "C.UTF-8", "LC_MESSAGES": "en_GB.UTF-8"}
	if n, v := Deciding(func(k string) string { return env[k] }); n != "LC_MESSAGES" || v != "en_GB.UTF-8" {
		t.Errorf("Deciding = %s=%s, want LC_MESSAGES first", n, v)
	}
	delete(env, "LC_MESSAGES")
	if n, v := Deciding(func(k string) string { return env[k] }); n != "LANG" || v != "C.UTF-8" {
		t.Errorf("Deciding = %s=%s", n, v)
	}
	if n, _ := Deciding(func(string) string { return "" }); n != "" {
		t.Errorf("Deciding with nothing set = %s", n)
	}
}
