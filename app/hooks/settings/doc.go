// Package settings installs, removes and checks agate's hooks in the
// agents' own settings files (Claude Code's and Gemini CLI's
// settings.json, Cursor's hooks.json, Codex CLI's config.toml, the
// user's or a project's), agate's Gemini CLI policy beside them, and
// agate's Codex exec-policy rules. Its subpackages edit the text, one a
// format (settingsjson the JSON settings, codexconfig Codex's
// config.toml, codexrules Codex's rules file); this package finds the
// files, backs them up, follows their links,
// writes them atomically with their mode kept, and starts over when an
// agent saves the file meanwhile. These files are the agents', not
// agate's: nothing here touches agate's own folders.
package settings
