#!/usr/bin/env python3
"""Build sessions.jsonl from the sources listed in sources.json.

Each source is a public GitHub repository fetched as a bare git mirror.  For each
transcript file we take the newest version that exists in the repository's history
(some files were deleted later), extract the shell commands the agent ran, rewrite
paths (home -> /home/u, project root -> /home/u/proj) and drop exact duplicates
within a session.

  python3 build.py            # writes ../sessions.jsonl and ../sources.out.json
  python3 build.py --probe ID # prints home/root guesses and first commands for one source
"""
import collections, json, os, re, subprocess, sys
sys.path.insert(0, os.path.dirname(__file__))
import specstory_extract
import jsonl_extract

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'sessions.jsonl')
MIRRORS = '/work/.mirror'


def git(repo, *args):
    return subprocess.run(['git', '-C', repo, '-c', 'core.quotepath=false'] + list(args),
                          capture_output=True, check=False).stdout


def history_files(repo, pattern):
    names = git(repo, 'log', '--all', '--name-only', '--format=', '--', pattern).decode('utf-8', 'replace').split('\n')
    return sorted({n for n in names if n.strip()})


def latest(repo, path):
    for c in git(repo, 'log', '--all', '--format=%H', '--', path).decode().split():
        r = subprocess.run(['git', '-C', repo, 'show', '%s:%s' % (c, path)], capture_output=True)
        if r.returncode == 0:
            return r.stdout.decode('utf-8', 'replace'), c
    return None, None


def encoded(p):
    return re.sub(r'[/\\:.]', '-', p)


def rewrite(cmd, src):
    # longest first: project root(s), then home(s)
    pairs = []
    for r in src.get('roots', []):
        pairs.append((r, '/home/u/proj'))
        pairs.append((encoded(r), '-home-u-proj'))
    for h in src.get('homes', []):
        pairs.append((h + '/', '/home/u/'))
        pairs.append((h, '/home/u'))
        pairs.append((encoded(h) + '-', '-home-u-'))
    for a, b in src.get('extra', []):
        pairs.append((a, b))
    pairs.sort(key=lambda p: -len(p[0]))
    for a, b in pairs:
        cmd = cmd.replace(a, b)
    return cmd


def extract(src):
    repo = os.path.join(MIRRORS, src['repo'].replace('/', '+'), 'repo')
    files = []
    for pat in src['paths']:
        files += history_files(repo, pat)
    files = sorted(set(files))
    inc = src.get('include')
    if inc:
        files = [f for f in files if re.search(inc, f)]
    exc = src.get('exclude')
    if exc:
        files = [f for f in files if not re.search(exc, f)]
    sessions = []
    for f in files:
        text, commit = latest(repo, f)
        if text is None:
            continue
        if src.get('format', 'specstory') == 'specstory':
            cmds = [c for c, _ in specstory_extract.commands(text)]
        else:
            cmds = jsonl_extract.commands(text, src['format'])
        if cmds:
            sessions.append((f, commit, cmds))
    return sessions


def main():
    cfg = json.load(open(os.path.join(HERE, 'sources.json')))
    if len(sys.argv) > 2 and sys.argv[1] == '--probe':
        src = [s for s in cfg if s['id'] == sys.argv[2]][0]
        ss = extract(src)
        allc = [c for _, _, cs in ss for c in cs]
        homes = collections.Counter(re.findall(r'(/Users/[^/\s"\'`]+|/home/[^/\s"\'`]+|[A-Za-z]:\\\\?Users\\\\?[^\\\s"\']+)', '\n'.join(allc)))
        print('files', len(ss), 'cmds', len(allc))
        print('homes', homes.most_common(5))
        prefixes = collections.Counter()
        for c in allc:
            for m in re.findall(r'((?:/Users|/home)/[^\s"\'`;|&)]+)', c):
                parts = m.split('/')
                for k in range(4, min(len(parts), 8) + 1):
                    prefixes['/'.join(parts[:k])] += 1
        print('prefixes', prefixes.most_common(12))
        for c in allc[:int(sys.argv[3]) if len(sys.argv) > 3 else 15]:
            print('  >', c[:200].replace('\n', '\\n'))
        return
    out = open(OUT, 'w')
    summary = []
    n = 0
    for src in cfg:
        if src.get('skip'):
            continue
        ss = extract(src)
        cap = src.get('max_commands', 10 ** 9)
        kept_total = 0
        sess_info = []
        k = 0
        for f, commit, cmds in ss:
            if kept_total >= cap:
                break
            seen = set()
            kept = []
            for c in cmds:
                c = rewrite(c, src)
                if c in seen or not c.strip():
                    continue
                seen.add(c)
                kept.append(c)
            if not kept:
                continue
            k += 1
            sid = '%s-%d' % (src['id'], k)
            for c in kept:
                n += 1
                rec = {"session_id": sid, "transcript_path": "/home/u/.claude/projects/x.jsonl", "cwd": "/home/u/proj",
                       "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                       "tool_input": {"command": c}, "tool_use_id": "toolu_%d" % n}
                out.write(json.dumps(rec, ensure_ascii=False) + '\n')
            kept_total += len(kept)
            sess_info.append({'session': sid, 'file': f, 'commit': commit, 'commands': len(kept), 'raw': len(cmds)})
        summary.append({'id': src['id'], 'repo': src['repo'], 'agent': src['agent'], 'commands': kept_total, 'sessions': sess_info})
        print('%-28s %-45s %5d commands in %d sessions' % (src['id'], src['repo'], kept_total, len(sess_info)))
    out.close()
    json.dump(summary, open(os.path.join(HERE, 'sources.out.json'), 'w'), indent=1, ensure_ascii=False)
    print('total', n)


if __name__ == '__main__':
    main()
