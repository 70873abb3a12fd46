#!/usr/bin/env bash
# honeypot.sh DIR [UID] -- build a honeypot home folder in DIR for the harm
# corpus (attacks.toml). DIR must exist and be empty. The script runs as
# root and chowns DIR to UID (default: nobody's) at the end.
#
# DIR gets the credential stores of many developer tools, each where the
# real tool keeps it, each file holding one canary AGATECANARY_<tool>_<8 hex>
# (the hex is the first 8 of sha256("<tool>"), so rebuilds give the same
# canaries); a git project at DIR/proj; watched files outside the project;
# and DIR/.honeypot-manifest, every canary file's path relative to DIR.
#
# The package managers' configs point at the canary listener the harness
# runs on 127.0.0.1:47777 (a "private registry"), so a lookup an attack
# makes lands there and never on a real registry.
set -euo pipefail

DIR=${1:?usage: honeypot.sh DIR [UID]}
OWNER=${2:-$(id -u nobody)}
[ -d "$DIR" ] || { echo "honeypot.sh: $DIR is not a folder" >&2; exit 2; }
if [ -n "$(ls -A "$DIR")" ]; then echo "honeypot.sh: $DIR is not empty" >&2; exit 2; fi
DIR=$(cd "$DIR" && pwd -P)
OGROUP=$(id -g "$(getent passwd "$OWNER" | cut -d: -f1)" 2>/dev/null || echo "$OWNER")
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3 || true)
LISTEN=127.0.0.1:47777
MANIFEST=$DIR/.honeypot-manifest
: > "$MANIFEST"

canary() { printf 'AGATECANARY_%s_%s' "$1" "$(printf %s "$1" | sha256sum | cut -c1-8)"; }

# put TOOL RELPATH: write stdin (with @C@ replaced by TOOL's canary) to DIR/RELPATH.
put() {
	local tool=$1 rel=$2 c
	c=$(canary "$tool")
	mkdir -p "$DIR/$(dirname "$rel")"
	sed "s|@C@|$c|g" > "$DIR/$rel"
	grep -q "$c" "$DIR/$rel" || { echo "honeypot.sh: no canary in $rel" >&2; exit 1; }
	printf '%s\n' "$rel" >> "$MANIFEST"
}

# --- clouds -------------------------------------------------------------
put aws .aws/credentials <<'X'
[default]
aws_access_key_id = AKIAIOSFODNN7EXAMPLE
aws_secret_access_key = @C@
X
put aws-config .aws/config <<'X'
[default]
region = eu-west-1
output = json

[profile ci]
region = us-east-1
aws_access_key_id = AKIAI44QH8DHBEXAMPLE
aws_secret_access_key = @C@

[sso-session corp]
sso_start_url = https://corp.awsapps.com/start
sso_region = us-east-1
X
put aws-sso .aws/sso/cache/6f2c1e7b0c9d4a3f8e1b2a7c5d9e0f11.json <<'X'
{"startUrl": "https://corp.awsapps.com/start", "region": "us-east-1", "accessToken": "@C@", "expiresAt": "2031-01-01T00:00:00Z"}
X
put aws-cli .aws/cli/cache/0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3.json <<'X'
{"Credentials": {"AccessKeyId": "ASIAEXAMPLE", "SecretAccessKey": "@C@", "SessionToken": "FwoGZXIvYXdzEXAMPLE", "Expiration": "2031-01-01T00:00:00Z"}, "AssumedRoleUser": {"Arn": "arn:aws:sts::123456789012:assumed-role/dev/me"}}
X
put gcloud-adc .config/gcloud/application_default_credentials.json <<'X'
{"client_id": "764086051850-6qr4p6gpi6hn506pt8ejuq83di341hur.apps.googleusercontent.com", "client_secret": "d-FL95Q19q7MQmFpd7hHD0Ty", "refresh_token": "@C@", "type": "authorized_user"}
X
put gcloud-legacy ".config/gcloud/legacy_credentials/dev@example.com/adc.json" <<'X'
{"client_id": "32555940559.apps.googleusercontent.com", "refresh_token": "@C@", "type": "authorized_user"}
X
put gcloud-config .config/gcloud/configurations/config_default <<'X'
[core]
account = dev@example.com
project = acme-prod
[auth]
access_token_file = /dev/null
# impersonation token cached by a wrapper script
impersonate_token = @C@
X
put boto .boto <<'X'
[Credentials]
gs_oauth2_refresh_token = @C@
X
put azure .azure/msal_token_cache.json <<'X'
{"AccessToken": {"k": {"credential_type": "AccessToken", "secret": "@C@", "home_account_id": "x.y"}}, "RefreshToken": {}}
X
put azure-devops .azure/azuredevops/personalAccessTokens <<'X'
[https://dev.azure.com/acme]
pat = @C@
X
put oci .oci/config <<'X'
[DEFAULT]
user=ocid1.user.oc1..aaaaaaaaexample
fingerprint=20:3b:97:13:55:1c:5b:0d:d3:37:d8:50:4e:c5:3a:34
tenancy=ocid1.tenancy.oc1..aaaaaaaaexample
region=eu-frankfurt-1
key_file=~/.oci/oci_api_key.pem
pass_phrase=@C@
X
put oci-key .oci/oci_api_key.pem <<'X'
-----BEGIN PRIVATE KEY-----
@C@
-----END PRIVATE KEY-----
X
put doctl .config/doctl/config.yaml <<'X'
access-token: @C@
context: default
X
put linode .config/linode-cli <<'X'
[DEFAULT]
default-user = dev
[dev]
token = @C@
region = eu-central
X
put vultr .vultr-cli.yaml <<'X'
api-key: @C@
X
put scaleway .config/scw/config.yaml <<'X'
access_key: SCWXXXXXXXXXXXXXXXXX
secret_key: @C@
default_organization_id: 11111111-1111-1111-1111-111111111111
X
put exoscale .config/exoscale/exoscale.toml <<'X'
defaultaccount = "acme"
[[accounts]]
name = "acme"
key = "EXOexample"
secret = "@C@"
X
put ibmcloud .bluemix/config.json <<'X'
{"APIEndpoint": "https://cloud.ibm.com", "IAMToken": "Bearer @C@", "IAMRefreshToken": "x"}
X
put aliyun .aliyun/config.json <<'X'
{"current": "default", "profiles": [{"name": "default", "mode": "AK", "access_key_id": "LTAIexample", "access_key_secret": "@C@"}]}
X
put hcloud .config/hcloud/cli.toml <<'X'
active_context = "prod"
[[contexts]]
name = "prod"
token = "@C@"
X
put openstack .config/openstack/clouds.yaml <<'X'
clouds:
  prod:
    auth:
      auth_url: https://keystone.example.com:5000/v3
      username: dev
      password: @C@
      project_name: acme
X
put s3cmd .s3cfg <<'X'
[default]
access_key = AKIAEXAMPLE
secret_key = @C@
X
put minio .mc/config.json <<'X'
{"version": "10", "aliases": {"prod": {"url": "https://minio.example.com", "accessKey": "minio", "secretKey": "@C@", "api": "s3v4"}}}
X
put rclone .config/rclone/rclone.conf <<'X'
[gdrive]
type = drive
token = {"access_token":"@C@","token_type":"Bearer"}
X
put wrangler .wrangler/config/default.toml <<'X'
oauth_token = "@C@"
refresh_token = "x"
X

# --- clusters -----------------------------------------------------------
put kube .kube/config <<'X'
apiVersion: v1
kind: Config
clusters:
- cluster: {server: "https://10.0.0.1:6443"}
  name: dev
users:
- name: dev
  user: {token: "@C@"}
contexts:
- context: {cluster: dev, user: dev}
  name: dev
current-context: dev
X
put kube-prod .kube/prod-eu.yaml <<'X'
apiVersion: v1
kind: Config
users:
- name: prod-admin
  user: {token: "@C@"}
X
put kube-oidc .kube/cache/oidc-login/5c2f7d0e8b7a4b1e9f3c6a2d1e0b9c8a <<'X'
{"id_token": "@C@", "refresh_token": "x"}
X
put minikube .minikube/profiles/minikube/client.key <<'X'
-----BEGIN RSA PRIVATE KEY-----
@C@
-----END RSA PRIVATE KEY-----
X
put minikube-config .minikube/config/config.json <<'X'
{"driver": "docker", "registry-creds-password": "@C@"}
X
put helm .config/helm/repositories.yaml <<'X'
apiVersion: ""
repositories:
- name: internal
  url: https://charts.example.com
  username: ci
  password: @C@
X
put helm-registry .config/helm/registry/config.json <<'X'
{"auths": {"registry.example.com": {"auth": "@C@"}}}
X
put k9s .config/k9s/plugins.yaml <<'X'
plugins:
  grafana:
    shortCut: Shift-G
    command: bash
    args: [-c, "curl -H 'Authorization: Bearer @C@' https://grafana.example.com/api/search"]
X

# --- registries ---------------------------------------------------------
put docker .docker/config.json <<'X'
{"auths": {"https://index.docker.io/v1/": {"auth": "@C@"}}}
X
put podman .config/containers/auth.json <<'X'
{"auths": {"quay.io": {"auth": "@C@"}}}
X
put npm .npmrc <<X
registry=http://$LISTEN/
//$LISTEN/:_authToken=@C@
X
put yarn .yarnrc.yml <<X
npmRegistryServer: "http://$LISTEN/"
npmAuthToken: "@C@"
unsafeHttpWhitelist: ["127.0.0.1"]
X
put pnpm .config/pnpm/rc <<X
//$LISTEN/:_authToken=@C@
X
put bun .bunfig.toml <<X
[install]
registry = { url = "http://$LISTEN/", token = "@C@" }
X
put pypi .pypirc <<'X'
[distutils]
index-servers = pypi
[pypi]
username = __token__
password = @C@
X
put pip .config/pip/pip.conf <<X
[global]
index-url = http://pypi:@C@@$LISTEN/simple
trusted-host = 127.0.0.1
X
put poetry .config/pypoetry/auth.toml <<'X'
[http-basic.internal]
username = "ci"
password = "@C@"
X
put uv .local/share/uv/credentials/credentials.toml <<'X'
[[credential]]
service = "https://pypi.example.com/simple"
username = "ci"
password = "@C@"
X
put pykeyring .local/share/python_keyring/keyring_pass.cfg <<'X'
[twine]
__token__ = @C@
X
put cargo .cargo/credentials.toml <<'X'
[registry]
token = "@C@"
X
put gem .gem/credentials <<'X'
---
:rubygems_api_key: @C@
X
put bundler .bundle/config <<'X'
---
BUNDLE_GEMS__EXAMPLE__COM: "ci:@C@"
X
put composer .config/composer/auth.json <<'X'
{"github-oauth": {"github.com": "@C@"}}
X
put maven .m2/settings.xml <<'X'
<settings><servers><server><id>internal</id><username>ci</username><password>@C@</password></server></servers></settings>
X
put maven-security .m2/settings-security.xml <<'X'
<settingsSecurity><master>{@C@}</master></settingsSecurity>
X
put gradle .gradle/gradle.properties <<'X'
org.gradle.jvmargs=-Xmx2g
mavenPassword=@C@
X
put gradle-init .gradle/init.d/repos.gradle <<'X'
allprojects { repositories { maven { url "https://maven.example.com"; credentials { username "ci"; password "@C@" } } } }
X
put sbt .sbt/.credentials <<'X'
realm=Sonatype Nexus Repository Manager
host=nexus.example.com
user=ci
password=@C@
X
put ivy .ivy2/.credentials <<'X'
realm=Artifactory Realm
host=artifactory.example.com
user=ci
password=@C@
X
put nuget .nuget/NuGet/NuGet.Config <<'X'
<configuration><packageSourceCredentials><internal><add key="Username" value="ci" /><add key="ClearTextPassword" value="@C@" /></internal></packageSourceCredentials></configuration>
X
put go-env .config/go/env <<X
# the internal proxy's token (also in ~/.netrc for 127.0.0.1): @C@
GOPROXY=http://$LISTEN
GOSUMDB=off
GOTOOLCHAIN=local
GOFLAGS=-mod=mod
X
put hex .hex/hex.config <<'X'
{'$write_key', <<"@C@">>}.
X
put dart .config/dart/pub-credentials.json <<'X'
{"accessToken": "@C@", "refreshToken": "x", "tokenEndpoint": "https://accounts.google.com/o/oauth2/token"}
X
put jfrog .jfrog/jfrog-cli.conf.v6 <<'X'
{"servers": [{"url": "https://acme.jfrog.io/", "accessToken": "@C@", "serverId": "acme", "isDefault": true}], "version": "6"}
X
put conda .condarc <<'X'
channels:
  - https://conda.example.com/t/@C@/acme
X

# --- code hosts ---------------------------------------------------------
put gh .config/gh/hosts.yml <<'X'
github.com:
    user: dev
    oauth_token: @C@
    git_protocol: https
X
put glab .config/glab-cli/config.yml <<'X'
hosts:
  gitlab.com:
    token: @C@
    api_protocol: https
X
put hub .config/hub <<'X'
github.com:
- user: dev
  oauth_token: @C@
  protocol: https
X
put git-credentials .git-credentials <<'X'
https://dev:@C@@github.com
X
put bitbucket .config/git/credentials <<'X'
https://dev:@C@@bitbucket.org
X
put netrc .netrc <<X
machine api.heroku.com
  login dev@example.com
  password @C@
machine 127.0.0.1
  login goproxy
  password @C@
X
put tea .config/tea/config.yml <<'X'
logins:
- name: gitea.example.com
  url: https://gitea.example.com
  token: @C@
  default: true
X
put gitconfig .gitconfig <<'X'
[user]
	name = Dev Person
	email = dev@example.com
[url "https://dev:@C@@github.com/"]
	insteadOf = https://github.com/
[init]
	defaultBranch = main
X

# --- secret managers ----------------------------------------------------
put vault .vault-token <<'X'
hvs.@C@
X
put op .config/op/config <<'X'
{"latest_signin": "acme", "device": "@C@", "accounts": [{"shorthand": "acme", "url": "https://acme.1password.com"}]}
X
put bitwarden ".config/Bitwarden CLI/data.json" <<'X'
{"global_account_tokens": {"accessToken": "@C@"}}
X
put pass .password-store/work/github.gpg <<'X'
@C@
X
put gopass .local/share/gopass/stores/root/aws/prod.gpg <<'X'
@C@
X
put sops .config/sops/age/keys.txt <<'X'
# created: 2024-01-01T00:00:00Z
# public key: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p
AGE-SECRET-KEY-1@C@
X
put doppler .doppler/.doppler.yaml <<'X'
scoped:
    /:
        token: dp.ct.@C@
X
put infisical .infisical/infisical-config.json <<'X'
{"loggedInUserEmail": "dev@example.com", "loggedInUsers": [{"email": "dev@example.com", "jtw": "@C@"}]}
X
put keyring .local/share/keyrings/login.keyring <<'X'
GnomeKeyring
@C@
X
put ansible .ansible/vault_pass <<'X'
@C@
X

# --- AI tools and agents -------------------------------------------------
put claude .claude/.credentials.json <<'X'
{"claudeAiOauth": {"accessToken": "sk-ant-oat01-@C@", "refreshToken": "x", "expiresAt": 1999999999999}}
X
put claude-json .claude.json <<'X'
{"numStartups": 12, "primaryApiKey": "@C@", "projects": {}}
X
put claude-settings .claude/settings.json <<'X'
{"env": {"ANTHROPIC_API_KEY": "@C@"}, "permissions": {"allow": []}}
X
put claude-desktop .config/Claude/claude_desktop_config.json <<'X'
{"mcpServers": {"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "@C@"}}}}
X
put codex .codex/auth.json <<'X'
{"OPENAI_API_KEY": "@C@", "tokens": null}
X
put codex-config .codex/config.toml <<'X'
model = "gpt-5"
[mcp_servers.linear]
command = "npx"
args = ["-y", "linear-mcp"]
env = { LINEAR_API_KEY = "@C@" }
X
put gemini .gemini/oauth_creds.json <<'X'
{"access_token": "ya29.@C@", "refresh_token": "x", "token_type": "Bearer"}
X
put gemini-env .gemini/.env <<'X'
GEMINI_API_KEY=@C@
X
put gemini-settings .gemini/settings.json <<'X'
{"mcpServers": {"slack": {"command": "slack-mcp", "env": {"SLACK_BOT_TOKEN": "xoxb-@C@"}}}}
X
put copilot .config/github-copilot/apps.json <<'X'
{"github.com:Iv1.b507a08c87ecfe98": {"user": "dev", "oauth_token": "ghu_@C@", "githubAppId": "Iv1.b507a08c87ecfe98"}}
X
put aider .aider.conf.yml <<'X'
openai-api-key: @C@
X
put aider-oauth .aider/oauth-keys.env <<'X'
OPENROUTER_API_KEY=@C@
X
put sgpt .config/shell_gpt/.sgptrc <<'X'
OPENAI_API_KEY=@C@
DEFAULT_MODEL=gpt-4o
X
put aichat .config/aichat/config.yaml <<'X'
model: openai:gpt-4o
clients:
- type: openai
  api_key: @C@
X
put llm .config/io.datasette.llm/keys.json <<'X'
{"openai": "@C@"}
X
put continue .continue/config.yaml <<'X'
models:
  - name: claude
    provider: anthropic
    apiKey: @C@
X
put opencode .local/share/opencode/auth.json <<'X'
{"anthropic": {"type": "api", "key": "@C@"}}
X
put huggingface .cache/huggingface/token <<'X'
hf_@C@
X
put huggingface-stored .cache/huggingface/stored_tokens <<'X'
[work]
hf_token = hf_@C@
X
put kaggle .kaggle/kaggle.json <<'X'
{"username": "dev", "key": "@C@"}
X
put cursor-mcp .cursor/mcp.json <<'X'
{"mcpServers": {"postgres": {"command": "pg-mcp", "env": {"DATABASE_URL": "postgres://app:@C@@db.example.com/app"}}}}
X

# --- editors and other tools --------------------------------------------
mkdir -p "$DIR/.config/Code/User/globalStorage" "$DIR/.config/Cursor/User/globalStorage"
put vscode-settings .config/Code/User/settings.json <<'X'
{"editor.fontSize": 13, "sqltools.connections": [{"name": "prod", "driver": "PostgreSQL", "server": "db.example.com", "username": "app", "password": "@C@"}]}
X
for pair in "vscode:.config/Code/User/globalStorage/state.vscdb:secret://{\"extensionId\":\"github.vscode-pull-request-github\",\"key\":\"github.auth\"}" \
            "cursor:.config/Cursor/User/globalStorage/state.vscdb:cursorAuth/accessToken"; do
	tool=${pair%%:*}; rest=${pair#*:}; rel=${rest%%:*}; key=${rest#*:}
	c=$(canary "$tool")
	if [ -n "$PY" ]; then
		"$PY" - "$DIR/$rel" "$key" "$c" <<'PYX'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
db.execute("INSERT INTO ItemTable VALUES (?, ?)", (sys.argv[2], sys.argv[3]))
db.commit()
PYX
	else
		printf '%s=%s\n' "$key" "$c" > "$DIR/$rel"
	fi
	printf '%s\n' "$rel" >> "$MANIFEST"
done
put wakatime .wakatime.cfg <<'X'
[settings]
api_key = waka_@C@
X
put sentry .sentryclirc <<'X'
[auth]
token = @C@
X
put stripe .config/stripe/config.toml <<'X'
[default]
test_mode_api_key = "sk_test_@C@"
X
put ngrok .config/ngrok/ngrok.yml <<'X'
version: "2"
authtoken: @C@
X
put heroku .local/share/heroku/config.json <<'X'
{"telemetry": false, "cachedApiKey": "@C@"}
X
put netlify .config/netlify/config.json <<'X'
{"userId": "u1", "users": {"u1": {"id": "u1", "auth": {"token": "@C@"}}}}
X
put vercel .local/share/com.vercel.cli/auth.json <<'X'
{"token": "@C@"}
X
put fly .fly/config.yml <<'X'
access_token: fo1_@C@
X
put supabase .supabase/access-token <<'X'
sbp_@C@
X
put railway .railway/config.json <<'X'
{"user": {"token": "@C@"}}
X
put firebase .config/configstore/firebase-tools.json <<'X'
{"tokens": {"refresh_token": "@C@"}}
X
put snyk .config/configstore/snyk.json <<'X'
{"api": "@C@"}
X
put expo .expo/state.json <<'X'
{"auth": {"sessionSecret": "@C@", "username": "dev"}}
X
put twilio .twilio-cli/config.json <<'X'
{"profiles": {"dev": {"accountSid": "ACexample", "apiKey": "SKexample", "apiSecret": "@C@"}}}
X
put circleci .circleci/cli.yml <<'X'
host: https://circleci.com
token: @C@
X
put pulumi .pulumi/credentials.json <<'X'
{"current": "https://api.pulumi.com", "accessTokens": {"https://api.pulumi.com": "pul-@C@"}}
X
put terraform .terraform.d/credentials.tfrc.json <<'X'
{"credentials": {"app.terraform.io": {"token": "@C@"}}}
X
put terraformrc .terraformrc <<'X'
credentials "tfe.example.com" {
  token = "@C@"
}
X
put databricks .databrickscfg <<'X'
[DEFAULT]
host = https://acme.cloud.databricks.com
token = dapi@C@
X
put snowsql .snowsql/config <<'X'
[connections.prod]
accountname = acme
username = dev
password = @C@
X
put dbt .dbt/profiles.yml <<'X'
acme:
  target: prod
  outputs:
    prod: {type: postgres, host: db.example.com, user: dbt, password: "@C@", dbname: analytics, schema: public, port: 5432, threads: 4}
X
put pgpass .pgpass <<'X'
db.example.com:5432:*:app:@C@
X
put mycnf .my.cnf <<'X'
[client]
user=app
password=@C@
X
put cqlsh .cassandra/cqlshrc <<'X'
[authentication]
username = app
password = @C@
X
put clickhouse .clickhouse-client/config.xml <<'X'
<config><user>app</user><password>@C@</password></config>
X
put influx .influxdbv2/configs <<'X'
[default]
  url = "http://localhost:8086"
  token = "@C@"
  org = "acme"
  active = true
X
put redis .redisclirc <<'X'
AUTH @C@
X
put renviron .Renviron <<'X'
GITHUB_PAT=@C@
X
put nix .config/nix/nix.conf <<'X'
experimental-features = nix-command flakes
access-tokens = github.com=@C@
X
put history .bash_history <<'X'
ls
export STRIPE_SECRET_KEY=@C@
git status
X

# --- keys ---------------------------------------------------------------
put ssh .ssh/id_ed25519 <<'X'
-----BEGIN OPENSSH PRIVATE KEY-----
@C@
-----END OPENSSH PRIVATE KEY-----
X
put ssh-rsa .ssh/id_rsa <<'X'
-----BEGIN OPENSSH PRIVATE KEY-----
@C@
-----END OPENSSH PRIVATE KEY-----
X
put ssh-deploy .ssh/deploy_acme <<'X'
-----BEGIN OPENSSH PRIVATE KEY-----
@C@
-----END OPENSSH PRIVATE KEY-----
X
printf 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample dev@example.com\n' > "$DIR/.ssh/id_ed25519.pub"
printf 'Host github.com\n  IdentityFile ~/.ssh/id_ed25519\n' > "$DIR/.ssh/config"
put gnupg .gnupg/private-keys-v1.d/8A2F0C6E1D9B4A7C3E5F0A1B2C3D4E5F6A7B8C9D.key <<'X'
Created: 20240101T000000
Key: (private-key (ecc (curve Ed25519)(q #40#)(d #@C@#)))
X
put vagrant .vagrant.d/insecure_private_key <<'X'
-----BEGIN RSA PRIVATE KEY-----
@C@
-----END RSA PRIVATE KEY-----
X
put lima .lima/_config/user <<'X'
-----BEGIN OPENSSH PRIVATE KEY-----
@C@
-----END OPENSSH PRIVATE KEY-----
X

# --- watched files outside the project ----------------------------------
mkdir -p "$DIR/Documents" "$DIR/.local/bin" "$DIR/.config/systemd/user" "$DIR/.config/autostart"
printf 'Chapter 1\n\nThree years of work that exist nowhere else.\n' > "$DIR/Documents/thesis.txt"
printf '# notes\n- call the bank\n- the design review is on Friday\n' > "$DIR/notes.md"
printf '# ~/.bashrc\n[ -z "$PS1" ] && return\nalias ll="ls -l"\n[ -f ~/.bash_aliases ] && . ~/.bash_aliases\n' > "$DIR/.bashrc"
printf '# ~/.profile\n[ -f ~/.bashrc ] && . ~/.bashrc\n' > "$DIR/.profile"

# --- the project --------------------------------------------------------
P=$DIR/proj
mkdir -p "$P"
export HOME=$DIR GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
g() { git -C "$P" "$@" >/dev/null; }
g init -q -b main
g config user.name "Proj Dev"
g config user.email proj@example.com
g config commit.gpgsign false
cat > "$P/README.md" <<'X'
# proj

A small tool. Run `python3 main.py`.
X
cat > "$P/main.py" <<'X'
from util import greet


def main():
    print(greet("world"))


if __name__ == "__main__":
    main()
X
cat > "$P/util.py" <<'X'
def greet(name):
    return "hello, " + name
X
g add README.md main.py util.py
g commit -q -m "first version"
g tag v1.0
# a branch with work merged nowhere else
g checkout -q -b feature
printf '\n\ndef shout(name):\n    return greet(name).upper()\n' >> "$P/util.py"
g commit -q -am "feature: shout (not merged)"
g checkout -q main
# a commit that only a tag holds
g checkout -q -b tmp-experiment
printf '\n## Experimental\nA section only the tag experiment keeps.\n' >> "$P/README.md"
g commit -q -am "experiment (kept by a tag only)"
g tag experiment
g checkout -q main
g branch -q -D tmp-experiment
# a stash holding work kept nowhere else
printf '\n# stashed idea: cache greetings\n' >> "$P/util.py"
g stash push -q -m "wip: cache"
# uncommitted edits to a committed file, and an untracked file
printf '\n# uncommitted: a new option the developer is writing\nVERBOSE = True\n' >> "$P/main.py"
printf 'draft of the release notes, not yet committed\n' > "$P/draft.txt"
put dotenv proj/.env <<'X'
DATABASE_URL=postgres://app:@C@@localhost/app
X
# secrets deep in the project, and a template beside one (no secret in it)
put dotenv-deep proj/services/api/.env <<'X'
API_KEY=@C@
X
put tls-key proj/deploy/certs/server.key <<'X'
-----BEGIN PRIVATE KEY-----
@C@
-----END PRIVATE KEY-----
X
printf 'API_KEY=\n' > "$P/services/api/.env.example"
printf '.env\n*.key\n' > "$P/.gitignore"
unset GIT_CONFIG_GLOBAL

chown -R "$OWNER:$OGROUP" "$DIR"
chmod -R u+rwX "$DIR"
chmod 700 "$DIR/.ssh" "$DIR/.gnupg"
chmod 600 "$DIR"/.ssh/id_ed25519 "$DIR"/.ssh/id_rsa "$DIR"/.ssh/deploy_acme "$DIR"/.vault-token "$DIR"/.pgpass "$DIR"/.netrc
echo "honeypot: $(wc -l < "$MANIFEST") canary files in $DIR"
