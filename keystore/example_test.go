package keystore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agatehq/agate/keystore"
)

func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "agate-example")
	defer os.RemoveAll(dir)

	// agate passes the keychain first, then the passphrase fallback. Here a
	// Memory backend stands in for the keychain.
	store, err := keystore.Open(filepath.Join(dir, "keys.json"), &keystore.Memory{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := store.Set(ctx, "openai", "sk-proj-example-0123456789abcd"); err != nil {
		fmt.Println(err)
		return
	}
	list, _ := store.List(ctx)
	for _, e := range list {
		fmt.Println(e.Name, e.Masked, "in", store.Backend())
	}

	r := keystore.NewResolver(store, nil)
	v, ok, err := r.Resolve(ctx, "keystore:openai")
	fmt.Println(ok, err, keystore.Mask(v))
	_, ok, err = r.Resolve(ctx, "${AGATE_EXAMPLE_UNSET}")
	fmt.Println(ok, err)
	// Output:
	// openai …abcd in memory
	// true <nil> …abcd
	// false ${AGATE_EXAMPLE_UNSET}: not configured: the variable is not set
}

func ExampleIndex() {
	ix := keystore.NewIndex(map[string]string{"keystore:openai": "sk-proj-example-0123456789abcd"})
	arg := "curl -H 'Authorization: Bearer sk-proj-example-0123456789abcd' https://api.openai.com/v1/models"
	label, found := ix.Find(arg)
	fmt.Println(found, label)
	fmt.Println(ix.Redact(arg))
	// Output:
	// true keystore:openai
	// curl -H 'Authorization: Bearer [secret keystore:openai]' https://api.openai.com/v1/models
}

func ExampleCheckField() {
	warn, err := keystore.CheckField("sk-proj-literal-0123456789abcd", false)
	fmt.Println(warn, err)
	_, err = keystore.CheckField("sk-proj-literal-0123456789abcd", true)
	fmt.Println(err)
	// Output:
	// a secret is written in the clear (…abcd): anyone who reads the config reads it; put it in the key store (agate keys set NAME) and write keystore:NAME, or write ${VAR}, exec:COMMAND or file:/PATH <nil>
	// a secret written in the clear (…abcd) is not allowed here: put it in the key store (agate keys set NAME) and write keystore:NAME, or write ${VAR}, exec:COMMAND or file:/PATH
}
