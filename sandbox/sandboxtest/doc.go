// Package sandboxtest plays, for tests, machines unlike the one the tests
// run on: where the kernel refuses user namespaces (a container's seccomp
// profile, user.max_user_namespaces = 0, a chroot), or where /tmp is not
// world-writable. Each condition is made for real, for one process tree
// only, and never changes the machine's own state.
//
// A test binary using it calls [Main] first thing in its TestMain; a test
// then runs a command under a condition with [Command]. Only Linux has the
// conditions; elsewhere Command fails and Main does nothing.
package sandboxtest
