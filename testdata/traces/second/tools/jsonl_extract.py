#!/usr/bin/env python3
"""Shell commands from raw agent session logs (JSON lines): Codex rollout files,
Claude Code project JSONL, Gemini CLI chat JSON. Filled in as sources need it."""
import json


def commands(text, fmt):
    out = []
    if fmt == 'codex-rollout':
        for line in text.splitlines():
            try:
                o = json.loads(line)
            except Exception:
                continue
            p = o.get('payload', o)
            if p.get('type') in ('function_call', 'local_shell_call') and p.get('name') in ('shell', 'exec_command', 'shell_command', 'container.exec', None):
                try:
                    a = json.loads(p.get('arguments') or '{}')
                except Exception:
                    continue
                c = a.get('command') or a.get('cmd') or (p.get('action') or {}).get('command')
                if isinstance(c, list):
                    # keep the wrapper as Codex ran it: bash -lc '<script>'
                    if len(c) == 3 and c[1] in ('-lc', '-c'):
                        c = "%s %s '%s'" % (c[0], c[1], c[2].replace("'", "'\"'\"'"))
                    else:
                        c = ' '.join(c)
                if c:
                    out.append(c)
    elif fmt == 'claude-jsonl':
        for line in text.splitlines():
            try:
                o = json.loads(line)
            except Exception:
                continue
            msg = o.get('message') or {}
            cont = msg.get('content')
            if o.get('type') == 'assistant' and isinstance(cont, list):
                for b in cont:
                    if b.get('type') == 'tool_use' and b.get('name') == 'Bash':
                        c = (b.get('input') or {}).get('command')
                        if c:
                            out.append(c)
    return out
