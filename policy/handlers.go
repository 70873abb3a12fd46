package policy

// handler adds what a program's catalog entry cannot say as data. Entries
// name it with handler = "NAME" (policy/programs/*.toml, and a person's
// own [programs.NAME]). A raw handler (rawHandlers) reads the words
// itself; any other runs after the words were read by the entry. The
// handlers live beside the family of programs whose entries name them
// (programs_FAMILY.go for policy/programs/FAMILY.toml), those several
// families name in programs_common.go.
type handler func(c *cmdRun)

// handlers are the named handlers, in one table. It is made in init, as
// some handlers read commands in turn (and so reach this table).
var handlers map[string]handler

// rawHandlers read a command's words themselves: find's expressions,
// dd's operands, env's assignments.
var rawHandlers = map[string]bool{"arcmd": true, "jar": true, "builtin-def": true, "capsh": true, "command": true, "cpio": true, "dd": true, "env": true, "eval": true, "find": true, "gitbisect": true, "openssl": true, "parallel": true, "sevenzip": true, "shell": true, "source": true, "tar": true, "tarx": true, "trap": true, "xargs": true}

func init() {
	handlers = map[string]handler{
		// policy/programs/archive.toml
		"cpio": cpioHandler, "arcmd": arcCommandHandler, "pax": paxHandler,
		// policy/programs/build.toml
		"npm": npmHandler, "npminit": npmInitHandler, "npmpkg": npmPkgHandler, "jar": jarHandler, "chmod": chmodHandler, "yarn": yarnHandler, "piplist": pipListHandler,
		"pipconfig": pipConfigHandler, "poetry": subWordsHandler(poetryWords),
		"bundle": subWordsHandler(bundleWords), "gem": subWordsHandler(gemWords),
		"composer": subWordsHandler(composerWords), "go": goHandler, "cmake": cmakeHandler,
		"builddir": buildDirHandler, "cc": ccHandler, "execsub": execSubHandler, "npx": npxHandler, "uvrun": uvRunHandler,
		"npm+dir":    func(c *cmdRun) { npmHandler(c); buildDirHandler(c) },
		"yarn+dir":   func(c *cmdRun) { yarnHandler(c); buildDirHandler(c) },
		"poetry+dir": func(c *cmdRun) { subWordsHandler(poetryWords)(c); buildDirHandler(c) },
		// policy/programs/builtins.toml
		"kill": killHandler, "command": commandHandler, "eval": evalHandler, "source": sourceHandler,
		"trap": trapHandler, "builtin-def": builtinDefHandler, "set": setHandler, "printf": printfHandler,
		"read": readHandler,
		// policy/programs/coreutils.toml
		"find": findHandler, "sed": sedHandler, "patch": patchHandler, "awk": awkHandler, "dd": ddHandler,
		"tar": tarHandler, "env": envHandler, "xargs": xargsHandler, "ln": lnHandler, "printenv": printenvHandler,
		"jq": jqHandler, "split": splitHandler, "unzip": unzipHandler, "sevenzip": sevenzipHandler,
		"watch": watchHandler, "tarx": tarRemoteHandler, "fd": fdHandler,
		// policy/programs/debug.toml
		"strace": straceHandler, "pipeout": straceHandler,
		// policy/programs/git.toml
		"git": gitHandler, "gitstash": gitStashHandler, "gitbisect": gitBisectHandler, "gitdiff": gitDiffHandler,
		// policy/programs/gtfobins.toml
		"identarg": identArgHandler, "nagios": nagiosHandler, "fzf": fzfHandler,
		// policy/programs/media.toml
		"ffmpeg": ffmpegHandler, "magick": magickHandler,
		// policy/programs/monitor.toml
		"getent": getentHandler, "capture": captureHandler, "ps": psHandler,
		// policy/programs/net.toml
		"ssh": sshHandler, "gh": ghHandler, "cloud": cloudHandler, "kubectl": kubectlHandler,
		"openssl": opensslHandler, "noops-exec": noOpsExecHandler, "sshfs": sshfsHandler,
		"kubectl+": kubectlSecretsHandler, "localget": localGetHandler, "helm": helmHandler, "tfplan": tfPlanHandler,
		// policy/programs/shells.toml
		"shell": shellHandler, "interpreter": interpreterHandler, "php": phpHandler, "deno": denoHandler,
		// policy/programs/system.toml
		"crontab": crontabHandler, "systemctl": systemctlHandler, "service": serviceHandler, "at": atHandler,
		"ip": netAdminHandler, "mount": mountHandler, "pkgmgr": pkgmgrHandler, "docker": dockerHandler,
		"sqlite": sqliteHandler, "gpg": gpgHandler, "sysctl": sysctlHandler, "ipx": ipHandler,
		// policy/programs/terminal.toml
		"nosub-exec": noSubExecHandler, "shellcmd": shellCmdHandler,
		// policy/programs/text.toml
		"tex": texHandler, "exiftool": exiftoolHandler, "csplit": csplitHandler, "cowfile": cowfileHandler,
		// policy/programs/vcs.toml
		"hgwrite": hgWriteHandler, "svn": svnHandler,
		// policy/programs/wrappers.toml
		"capsh": capshHandler, "parallel": parallelHandler, "leadcmd": leadCmdHandler,
		// named by the entries of several families
		"interactive": interactiveHandler, "pathops": pathOpsHandler, "restcmd": restCmdHandler,
		"atfile": atFileHandler, "unless": unlessHandler,
	}
}
