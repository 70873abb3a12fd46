package stores

import "slices"

// Protected returns the built-in list of paths whose writes ask, in the
// form [auto] protected_paths takes: names and globs matched anywhere,
// "~/" paths, absolute paths; a trailing "/" is a folder and all it
// holds. The sandbox keeps each that exists read-only.
func Protected() []string { return slices.Clone(protected) }

// protected are the writes that ask by default: eVi's list, and what
// makes an agent or an editor run code or change its own rules.
var protected = []string{
	// eVi's: secrets and shell start-up files
	".env", ".env.*", ".envrc", ".npmrc", ".pypirc", ".gitconfig", ".netrc", ".git-credentials",
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv",
	".zprofile", ".zlogin", ".zlogout", ".cshrc", ".tcshrc", ".kshrc", ".inputrc", ".config/fish/",
	"*.pem", "*.key", "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", ".ssh/", ".gnupg/",
	".aws/", ".kube/", ".docker/config.json",
	// agents' and editors' own settings, hooks, commands and tasks, and
	// agate's own per-project overlay
	".claude/", ".gemini/", ".cursor/", ".codex/", ".vscode/", ".idea/", ".mcp.json", ".agate.toml",
	// git runs hooks and obeys its config
	".git/hooks/", ".git/config", ".git/info/attributes", ".gitmodules", ".husky/",
	// agents read their instructions from these: a write is a standing
	// instruction to every later session
	"CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "AGENT.md", "GEMINI.md", "QWEN.md", "WARP.md", "CONVENTIONS.md", ".cursorrules", ".windsurfrules",
	".clinerules", ".clinerules/", ".roorules", ".goosehints", ".rules", ".windsurf/", ".roo/", ".kiro/", ".amazonq/",
	".continue/", ".zed/", ".junie/", ".qwen/", ".opencode/", "opencode.json", "opencode.jsonc", ".crush.json", "crush.json",
	".aider.conf.yml", ".github/copilot-instructions.md", ".github/instructions/", ".github/prompts/", ".github/chatmodes/",
	"~/.claude.json", "~/.config/claude/",
	// the hooks and plugins that put agents behind agate: a write there
	// could take an agent out from behind it, or run code on every call
	".github/hooks/", ".copilot/", "~/.config/opencode/",
	// what runs code on its own when the folder is opened, a commit is
	// made or the shell enters it: dev containers, workspaces' tasks, git
	// hook managers, mise's hooks and tasks, Python's start-up files, and
	// CI, which runs with the repository's secrets
	".devcontainer/", ".devcontainer.json", "*.code-workspace", ".pre-commit-config.yaml", "lefthook.yml",
	".lefthook.yml", "lefthook-local.yml", ".lefthook/", "mise.toml", ".mise.toml", "mise.local.toml", ".mise/",
	"~/.config/mise/", "*.pth", "sitecustomize.py", "usercustomize.py", ".github/workflows/", ".gitlab-ci.yml",
	// what runs later, or on its own: cron, systemd and launchd units,
	// autostart entries, programs on the PATH
	"/etc/cron.d/", "/etc/cron.daily/", "/etc/cron.hourly/", "/etc/cron.weekly/", "/etc/cron.monthly/", "/etc/crontab",
	"/var/spool/cron/", "/etc/systemd/", "~/.config/systemd/", "~/.local/share/systemd/", "~/.config/autostart/",
	"~/Library/LaunchAgents/", "/Library/LaunchAgents/", "/Library/LaunchDaemons/", "~/.local/bin/", "~/bin/",
	"/etc/profile", "/etc/profile.d/", "/etc/bash.bashrc", "/etc/zsh/", "/etc/environment", "/etc/ld.so.preload",
	"/etc/sudoers", "/etc/sudoers.d/", "~/.config/environment.d/", "~/.pam_environment", "~/.xprofile", "~/.xinitrc",
	// where packages come from
	"pip.conf", "~/.config/pip/", "~/.pip/", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs", ".condarc", ".gemrc",
	".bundle/config", ".cargo/config", ".cargo/config.toml", "~/.m2/settings.xml", "~/.gradle/gradle.properties",
	"~/.config/go/env", ".bunfig.toml", "bunfig.toml",
}
