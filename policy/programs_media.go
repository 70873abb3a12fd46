package policy

import (
	"strings"
)

// The handlers of media tools: ffmpeg and ImageMagick (policy/programs/media.toml).

// --- ffmpeg ---

// ffmpegFilterCode are filters that load a library; ffmpegFilterFiles
// read files (or URLs) the filter string names.
var (
	ffmpegFilterCode  = lazyRegexp(`(?i)(^|[,;\[\]\s])(ladspa|lv2|frei0r|frei0r_src|ocv|zmq|azmq)\b`)
	ffmpegFilterFiles = lazyRegexp(`(?i)(^|[,;\[\]\s])(movie|amovie|subtitles|ass|sendcmd|asendcmd|lut3d|haldclut|lut1d|drawtext|coreimage|coreimagesrc)\b`)
)

// ffmpegHandler: the filter graphs are small programs of their own.
func ffmpegHandler(c *cmdRun) {
	for _, o := range c.opts {
		switch o.name {
		case "-vf", "-af", "-filter", "-filter:v", "-filter:a", "-filter_complex", "-lavfi", "-filter_script", "-filter_complex_script":
			if !o.lit || ffmpegFilterCode().MatchString(o.val) {
				c.add(Effect{Kind: EffExec, What: "an ffmpeg filter that loads a library"})
			} else if ffmpegFilterFiles().MatchString(o.val) {
				c.unknown("an ffmpeg filter that reads the files it names")
			}
		}
	}
}

// --- ImageMagick ---

// magickCoders are ImageMagick's input coders that run programs or read
// the files a script names.
var magickCoders = lazyRegexp(`(?i)^(msl|mvg|svg|msvg|text|ephemeral|label|caption|pango|ps|eps|pdf|epi|epsf|epsi|url|http|https|ftp|mpeg|show|win|x|vid|inline|@)[:]`)

// magickHandler: a file name |CMD makes ImageMagick run CMD; msl:,
// mvg:, text:@FILE and the PostScript delegates read other files or run
// programs.
func magickHandler(c *cmdRun) {
	for _, op := range c.ops {
		w := op.word
		switch {
		case !op.lit:
		case strings.HasPrefix(w, "|"):
			c.sh.parse(w[1:], c.depth+1)
		case magickCoders().MatchString(w) || strings.HasPrefix(w, "@"):
			if i := strings.IndexAny(w, ":@"); i >= 0 && i+1 < len(w) {
				c.pathEffect(EffRead, strings.TrimPrefix(w[i+1:], "@"), true, Effect{})
			}
			c.unknown(c.prog + " " + w + ": a coder that reads other files or runs programs")
		}
	}
}
