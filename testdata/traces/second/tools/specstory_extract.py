#!/usr/bin/env python3
"""Extract the shell commands an agent ran from SpecStory Markdown transcripts.

Handles three renderings that SpecStory has produced:

  modern   <tool-use data-tool-type="shell" data-tool-name="...">...</tool-use>
           (Markdown v2.x: Cursor run_terminal_cmd, Claude Code Bash, Codex
           shell/exec_command, Gemini run_shell_command, ...)
  legacy   bare "Tool use: **Bash**" / "Tool use: **shell**" lines without the
           envelope (SpecStory CLI, mid-2025)
  cursor0  the early Cursor extension format: a section between '---' rules
           that starts with a ```bash fence followed by an output fence.

Only commands that show evidence of having been executed are returned:
an output block, or (for tool-use envelopes without output) no sign in the
following text that the user skipped/cancelled it.

Usage as a library: commands(text) -> list of (command, kind)
"""
import re

FENCE_LANGS = ('bash', 'sh', 'shell', 'zsh', 'powershell', 'pwsh', 'cmd', 'console', 'ps1', 'bat')
SKIP_RE = re.compile(r"(user (has )?(skipped|rejected|declined|cancel)|was (skipped|rejected|cancell?ed|not run)|"
                     r"command (was )?(skipped|rejected|cancell?ed)|didn'?t run|did not run|not executed|"
                     r"^\s*Cancell?ed\s*$|user chose not to run)", re.I | re.M)


def _first_fence(body):
    """Return (lang, content, rest) for the first ``` fence in body, or None."""
    m = re.search(r'(^|\n)(`{3,})([\w+-]*)[^\n]*\n(.*?)\n\2[ \t]*(?=\n|$)', body, re.S)
    if not m:
        return None
    return m.group(3), m.group(4), body[m.end():]


def _inline_cmd(body):
    """First line-level inline code span `...` (possibly with more backticks)."""
    m = re.search(r'(^|\n)[ \t]*(`+)(?!`)(.+?)(?<!`)\2[ \t]*(?=\n|$)', body, re.S)
    if m:
        return m.group(3), body[m.end():]
    return None


def _shell_from_block(name, body):
    """Parse the inside of a shell tool-use block. Returns (cmd, has_output)."""
    # Cursor: summary "... • Run command: CMD" then ```bash CMD```
    b = body
    m = re.search(r'<summary>(.*?)</summary>', b, re.S)
    summary = m.group(1) if m else ''
    after = b[m.end():] if m else b
    # Codex legacy-in-envelope: "- command: `[bash -lc ...]`" or **Input:** lists
    mc = re.search(r'^- command: (`+)(.*?)\1\s*$', after, re.S | re.M)
    if mc and 'Tool use: **shell' in summary:
        cmd = mc.group(2)
        if cmd.startswith('[') and cmd.endswith(']'):
            cmd = cmd[1:-1]
        return cmd, '```' in after[mc.end():]
    f = _first_fence(after)
    inl = _inline_cmd(after)
    # prefer whichever comes first
    cand = []
    if f and f[0] in FENCE_LANGS + ('',):
        pos = after.find('```' + f[0])
        cand.append((pos, 'fence'))
    if inl:
        pos = after.find('`' + inl[0])
        cand.append((pos, 'inline'))
    if not cand:
        if 'Run command:' in summary:
            return summary.split('Run command:', 1)[1].strip(), False
        return None, False
    cand.sort()
    kind = cand[0][1]
    if kind == 'fence' and f[0] in FENCE_LANGS:
        cmd, rest = f[1], f[2]
    elif kind == 'inline':
        cmd, rest = inl
    else:  # bare fence without language: treat as command only if no inline and summary says Run command
        cmd, rest = f[1], f[2]
    has_out = '```' in rest or 'Output:' in rest or 'Result:' in rest
    return cmd, has_out


def modern(text):
    out = []
    for m in re.finditer(r'<tool-use data-tool-type="(?:shell|bash)"(?: data-tool-name="([^"]*)")?[^>]*>(.*?)</tool-use>', text, re.S):
        name, body = m.group(1) or '', m.group(2)
        cmd, has_out = _shell_from_block(name, body)
        if not cmd:
            continue
        follow = text[m.end():m.end() + 400]
        if not has_out and SKIP_RE.search(follow):
            continue
        if SKIP_RE.search(body[-200:]) and not has_out:
            continue
        out.append((cmd, 'modern:' + name))
    return out


LEGACY_RE = re.compile(r'^Tool use: \*\*(Bash|shell|run_shell_command|exec_command|Shell|bash|run_terminal_cmd|local_shell)\*\*[^\n]*\n', re.M)


def legacy(text):
    out = []
    for m in LEGACY_RE.finditer(text):
        seg_end = text.find('\n_**', m.end())
        seg = text[m.end(): seg_end if seg_end != -1 else len(text)]
        nxt = LEGACY_RE.search(seg)
        if nxt:
            seg = seg[:nxt.start()]
        cmd, has_out = _shell_from_block(m.group(1), '<summary>Tool use: **%s**</summary>' % m.group(1) + seg)
        if not cmd:
            continue
        if not has_out and SKIP_RE.search(seg[:400] + text[m.end() + len(seg):m.end() + len(seg) + 300]):
            continue
        out.append((cmd, 'legacy:' + m.group(1)))
    return out


def cursor0(text):
    out = []
    secs = re.split(r'\n---\n', text)
    for i, s in enumerate(secs):
        st = s.strip()
        m = re.match(r'```(bash|sh|shell|zsh|powershell|pwsh|cmd|ps1|bat)\n(.*?)\n```(.*)\Z', st, re.S)
        if not m:
            continue
        rest = m.group(3).strip()
        if not rest.startswith('```'):
            continue  # no output block: proposed, cancelled or skipped - not evidence of a run
        out.append((m.group(2), 'cursor0:' + m.group(1)))
    return out


def commands(text):
    if '<tool-use data-tool-type=' in text:
        return modern(text)
    if LEGACY_RE.search(text):
        return legacy(text)
    return cursor0(text)
