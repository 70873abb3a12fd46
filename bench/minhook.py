#!/usr/bin/env python3
"""The Python floor for a hook: read the agent's JSON, print an answer."""
import json
import sys

json.load(sys.stdin)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}))
