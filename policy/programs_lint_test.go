package policy

import (
	"strings"
	"testing"
)

// TestProgramEffectTargets: an effect's target is a path (read, write,
// delete) or a host (network, upload), never a description: a target
// with a space in it names a file or host nobody meant.
func TestProgramEffectTargets(t *testing.T) {
	specs, err := builtinProgramSpecs()
	if err != nil {
		t.Fatal(err)
	}
	check := func(where, e string) {
		name, target, ok := strings.Cut(e, ":")
		if !ok {
			return
		}
		switch name {
		case "read", "write", "delete", "edit", "create", "append":
			if strings.ContainsAny(target, " \t") {
				t.Errorf("%s: effect %q: a path, not a description", where, e)
			}
		case "network", "upload":
			if strings.ContainsAny(target, " \t/") {
				t.Errorf("%s: effect %q: a host, not a description", where, e)
			}
		}
	}
	var walk func(prefix string, s ProgramSpec)
	walk = func(prefix string, s ProgramSpec) {
		for _, e := range s.Effects {
			check(prefix, e)
		}
		for _, o := range s.Opts {
			if _, effs, ok := strings.Cut(o, "!"); ok {
				for _, e := range strings.Split(effs, ",") {
					check(prefix+" "+o, strings.TrimSpace(e))
				}
			}
		}
		for _, sn := range sortedKeys(s.Sub) {
			walk(prefix+" "+sn, s.Sub[sn])
		}
	}
	for _, name := range sortedKeys(specs) {
		walk(name, specs[name])
	}
}

// gtfoBins are the binaries GTFOBins lists (gtfobins.github.io,
// _gtfobins/, April 2026), but redis, whose page is redis-cli's.
const gtfoBins = `
	7z R aa-exec ab acr agetty alpine ansible-playbook ansible-test aoss apache2 apache2ctl apport-cli apt apt-get aptitude
	ar arch-nspawn aria2c arj arp as ascii-xfr ascii85 ash aspell asterisk at atobm autoconf autoheader autoreconf awk aws
	base32 base58 base64 basenc basez bash bashbug batcat bbot bc bconsole bee borg bpftrace bridge bundle bundler busctl
	busybox byebug bzip2 c89 c99 cabal cancel capsh cargo cat cc cdist certbot chattr check_by_ssh check_cups check_log
	check_memory check_raid check_ssl_cert check_statusfile chmod choom chown chroot chrt clamscan clisp cmake cmp cobc
	code codex column comm composer cowsay cowthink cp cpan cpio cpulimit crash crontab csh csplit csvtool ctr cupsfilter
	curl cut dash date dc dd debugfs dhclient dialog diff dig distcc dmesg dmidecode dmsetup dnf dnsmasq doas docker
	dos2unix dosbox dotnet dpkg dstat dvips easy_install easyrsa eb ed efax egrep elvish emacs enscript env eqn espeak ex
	exiftool expand expect facter fail2ban-client fastfetch ffmpeg fgrep file find finger firejail fish flock fmt fold
	forge fping ftp fzf g++ gawk gcc gcloud gcore gdb gem genie genisoimage getent ghc ghci gimp ginsh git gnuplot go grc
	grep gtester guile gzip hashcat hd head hexdump hg highlight hping3 iconv iftop install ionice ip iptables-save irb
	ispell java jjs joe join journalctl jq jrunscript jshell jtag julia knife ksh ksshell ksu kubectl last lastb latex
	latexmk ld.so ldconfig less lftp links ln loginctl logrotate logsave look lp ltrace lua lualatex luatex lwp-download
	lwp-request lxd m4 mail make man mawk minicom more mosh-server mosquitto mount msfconsole msgattrib msgcat msgconv
	msgfilter msgmerge msguniq mtr multitime mutt mv mypy mysql nano nasm nawk nc ncdu ncftp needrestart neofetch nft nginx
	nice nl nm nmap node nohup npm nroff nsenter ntpdate nvim octave od opencode openssl openvpn openvt opkg pandoc passwd
	paste pax pdb pdflatex pdftex perf perl perlbug pexec pg php pic pico pidstat pip pipx pkexec pkg plymouth podman
	poetry posh pr procmail pry psftp psql ptx puppet pwsh pygmentize pyright python qpdf rake ranger rc readelf red
	redcarpet restic rev rlogin rlwrap rpm rpmdb rpmquery rpmverify rsync rsyslogd rtorrent ruby run-mailcap run-parts
	runscript rustc rustdoc rustfmt rustup rview rvim sash scanmem scp screen script scrot sed service setarch setcap
	setfacl setlock sftp sg shred shuf slsh smbclient snap socat socket soelim softlimit sort split sqlite3 sqlmap ss ssh
	ssh-agent ssh-copy-id ssh-keygen ssh-keyscan sshfs sshpass sshuttle start-stop-daemon stdbuf strace strings su sudo
	sysctl systemctl systemd-resolve systemd-run tac tail tailscale tar task taskset tasksh tbl tclsh tcpdump tcsh tdbtool
	tee telnet terraform tex tftp tic time timedatectl timeout tmate tmux top torify torsocks troff tsc tshark ul unexpand
	uniq unshare unsquashfs unzip update-alternatives urlget uuencode uv vagrant valgrind varnishncsa vi view vigr vim
	vimdiff vipw virsh volatility w3m wall watch wc wg-quick wget whiptail whois wireshark wish xargs xdg-user-dir xdotool
	xelatex xetex xmodmap xmore xpad xxd xz yarn yash yelp yt-dlp yum zathura zcat zgrep zic zip zless zsh zsoelim zypper
`

// TestProgramCatalogKnowsGTFOBins: every binary GTFOBins lists, which
// can run a shell, read or write files or reach the network in ways
// its everyday use does not show, has an entry (or is an alias of one).
func TestProgramCatalogKnowsGTFOBins(t *testing.T) {
	p, err := builtinPrograms()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range strings.Fields(gtfoBins) {
		if p.lookupVersioned(name) == nil {
			t.Errorf("GTFOBins lists %s: the catalog has no entry for it", name)
		}
	}
}
