// Package quietlocale keeps Fyne from logging a locale error at start-up
// where the locale is C or POSIX with an encoding ("C.UTF-8", the default
// of many systems and containers where LANG is not set by the person).
//
// Fyne's lang package reads the locale in its init, before main runs, and
// logs "Fyne error: Error parsing user locale C" for such a value: noise on
// every start of the agate binary, the headless daemon's too, although
// nothing of Fyne runs there. This package's init runs first and, for the
// time of Fyne's init, sets the variable that decides to plain "C" (the
// same locale, which Fyne reads as English without complaint). Package ui
// calls Restore from its own init, which runs after Fyne's, so main and
// every process agate starts see the environment as it was.
//
// It runs first because Go initialises packages in import path order
// among those whose imports are done: this package imports only os and
// strings, and sorts before github.com/jeandeaual/go-locale, which Fyne's
// lang package imports to read the locale. It must not import anything
// else.
package quietlocale

import (
	"os"
	"strings"
)

// vars are the variables that decide the locale, first set first, as
// Fyne's locale reader (go-locale) looks at them.
var vars = []string{"LC_ALL", "LC_MESSAGES", "LANG"}

// saved is what init changed: the variable and its value.
var saved struct{ name, value string }

func init() {
	name, value := Deciding(os.Getenv)
	if name != "" && NeedsQuiet(value) {
		saved.name, saved.value = name, value
		os.Setenv(name, "C")
	}
}

// Deciding returns the variable that decides the locale, and its value;
// "" when none is set.
func Deciding(getenv func(string) string) (name, value string) {
	for _, v := range vars {
		if s := getenv(v); s != "" {
			return v, s
		}
	}
	return "", ""
}

// NeedsQuiet reports whether Fyne would log an error for the locale
// value: C or POSIX with an encoding or modifier ("C.UTF-8", "POSIX@x").
// Plain "C" and "POSIX" it reads as no locale, quietly.
func NeedsQuiet(value string) bool {
	lang, _, _ := strings.Cut(value, ".")
	lang, _, _ = strings.Cut(lang, "@")
	return value != lang && (lang == "C" || lang == "POSIX")
}

// Restore puts back the variable init changed, if it changed one. Package
// ui calls it from its init, once Fyne's has run.
func Restore() {
	if saved.name != "" {
		os.Setenv(saved.name, saved.value)
		saved.name = ""
	}
}
