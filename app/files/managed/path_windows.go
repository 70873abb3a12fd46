package managed

// Path is where the managed policy file is. It is set when agate is
// built, never at run time.
var Path = `C:\Program Files\agate\managed.toml`
