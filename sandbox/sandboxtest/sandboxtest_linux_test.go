//go:build linux

package sandboxtest

import (
	"os"
	"testing"
)

// TestOwnNamespace: the conditions that change a sysctl or the mounts are
// refused in the caller's own namespaces, before anything is changed.
func TestOwnNamespace(t *testing.T) {
	userNS, err := os.Readlink("/proc/self/ns/user")
	if err != nil {
		t.Fatal(err)
	}
	mountNS, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		s  spec
		ok bool
	}{
		{spec{Condition: MaxUserNS, UserNS: userNS}, false},
		{spec{Condition: MaxUserNS}, false},
		{spec{Condition: MaxUserNS, UserNS: "user:[1]"}, true},
		{spec{Condition: Chroot, MountNS: mountNS}, false},
		{spec{Condition: Tmp0755, MountNS: mountNS}, false},
		{spec{Condition: Tmp0755}, false},
		{spec{Condition: Chroot, MountNS: "mnt:[1]"}, true},
		{spec{Condition: Seccomp}, true}, // a filter on the wrapper itself changes nothing else
	} {
		if err := ownNamespace(tc.s); (err == nil) != tc.ok {
			t.Errorf("ownNamespace(%+v) = %v, want ok %v", tc.s, err, tc.ok)
		}
	}
}
