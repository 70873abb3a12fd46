package managed

// Path is where the managed policy file is. It is set when agate is
// built (-ldflags -X for a package's tests of their own), never at run
// time.
var Path = "/etc/agate/managed.toml"
