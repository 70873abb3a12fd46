#!/usr/bin/env python3
"""Replace the live-looking credentials the sources' authors published in
their transcripts (a production database password, a bot token, a service
password) with fakes of the same shape, in ../sessions.jsonl, in place.

The secrets are known here only by their SHA-256, so this file does not
publish them again. A fake keeps the length and the kind of each character
(digit, lower, upper, other), so a command still looks as it did: a token
in an argument is still a token.

  python3 redact.py     # after build.py
"""
import hashlib, os, re

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'sessions.jsonl')

SECRETS = {
    '66b05dce53676cfcc32e6ca44350d3a2e509ee1c6f1384b2e3acf51dd8200165',  # a hosted database's password
    '32001d5f20a400e631d0dc42602d55b98f6e4d9145662b0df59673dd7839ee06',  # a Telegram bot token
    'faa3c4f7f9bbc6aac26d2dce68107e83a2683e1e760b0d604c3cc0ac0f5226af',  # a service password
}
WORD = re.compile(r'[A-Za-z0-9!_:.-]{12,}')


def fake(s):
    out = []
    for i, ch in enumerate(s):
        if ch.isdigit():
            out.append(str(i % 10))
        elif ch.islower():
            out.append('x')
        elif ch.isupper():
            out.append('X')
        else:
            out.append(ch)
    return ''.join(out)


def redact(text):
    def sub(m):
        w = m.group(0)
        # Try the word and its pieces split at ':' or '=' (user:password@host).
        for cand in [w] + re.split(r'[:=@]', w) + re.findall(r'\d{6,}:[A-Za-z0-9_-]{20,}', w):
            if len(cand) >= 12 and hashlib.sha256(cand.encode()).hexdigest() in SECRETS:
                w = w.replace(cand, fake(cand))
        return w
    return WORD.sub(sub, text)


def main():
    with open(OUT, encoding='utf-8') as f:
        lines = f.readlines()
    changed = 0
    with open(OUT + '.tmp', 'w', encoding='utf-8') as f:
        for line in lines:
            new = redact(line)
            changed += new != line
            f.write(new)
    os.replace(OUT + '.tmp', OUT)
    print('redacted %d lines' % changed)


if __name__ == '__main__':
    main()
