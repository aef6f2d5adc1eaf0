#!/usr/bin/python3
"""A real OpenID Connect provider for tests: Debian's glewlwyd, on a free loopback port, with a confidential client and a user.

Usage: openid_provider.py FOLDER --parent PID --redirect-uri URI [--redirect-uri URI ...]

Makes a glewlwyd instance in FOLDER (its SQLite database from the package's schema, an RSA signing key, its login
pages), starts it, and sets it up through its admin API: an OpenID Connect plugin (authorization code flow, PKCE with
S256, ID tokens signed RS256), a confidential client whose redirect URIs are the ones given, and a user who granted
the client the openid and email scopes. Prints one line, "ready " and JSON: issuer, clientID, clientSecret, username, password,
email. Ends glewlwyd, and itself, when process PID (the test's) is gone.
"""
import argparse
import http.cookiejar
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request

SCHEMA = "/usr/share/dbconfig-common/data/glewlwyd/install/sqlite3"
WEBAPP = "/usr/share/glewlwyd/webapp"
WEBAPP_CONFIG = "/etc/glewlwyd/config-2.7.json/config.json"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def configuration(folder, port):
    mime = ", ".join(
        '{ extension = "%s"; mime_type = "%s"; }' % pair
        for pair in [(".html", "text/html"), (".css", "text/css"), (".js", "application/javascript"), (".json", "application/json"),
                     (".png", "image/png"), (".ico", "image/x-icon"), (".woff2", "font/woff2"), (".woff", "font/woff"), (".ttf", "font/ttf"),
                     (".svg", "image/svg+xml")]
    )
    return f"""port={port}
bind_address="127.0.0.1"
external_url="http://127.0.0.1:{port}"
login_url="login.html"
static_files_path="{folder}/web/"
api_prefix="api"
allow_origin="*"
log_mode="file"
log_file="{folder}/glewlwyd.log"
log_level="WARNING"
cookie_secure=0
session_expiration=3600
session_key="GLEWLWYD2_SESSION_ID"
admin_session_authentication="cookie"
profile_session_authentication="cookie"
allow_multiple_user_per_session=true
login_api_enabled=true
add_x_frame_option_header_deny=true
max_post_size=1048576
admin_scope="g_admin"
profile_scope="g_profile"
user_module_path="/usr/lib/glewlwyd/user"
client_module_path="/usr/lib/glewlwyd/client"
user_auth_scheme_module_path="/usr/lib/glewlwyd/scheme"
plugin_module_path="/usr/lib/glewlwyd/plugin"
hash_algorithm="SHA512"
database = {{ type = "sqlite3"; path = "{folder}/glewlwyd.sqlite"; }};
static_files_mime_types = ( {mime} );
"""


class API:
    """glewlwyd's REST API as one signed-in person (its session cookie kept)."""

    def __init__(self, base):
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def send(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method, headers={"Content-Type": "application/json"})
        try:
            with self.opener.open(request, timeout=30) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def expect(self, method, path, body=None):
        status, answer = self.send(method, path, body)
        if status != 200:
            raise SystemExit(f"glewlwyd answered {status} to {method} {path}: {answer[:300]!r}")
        return answer


def main():
    # The test process may start this one with signals blocked; SIGTERM must reach it (and glewlwyd) to stop them.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--parent", type=int, required=True)
    parser.add_argument("--redirect-uri", action="append", required=True)
    options = parser.parse_args()
    if shutil.which("glewlwyd") is None or not os.path.exists(SCHEMA):
        print("glewlwyd is not installed (apt-get install glewlwyd; .ci/run does)", flush=True)
        sys.exit(1)
    folder = os.path.abspath(options.folder)
    os.makedirs(folder, exist_ok=True)
    database = sqlite3.connect(os.path.join(folder, "glewlwyd.sqlite"))
    with open(SCHEMA) as schema:
        database.executescript(schema.read())
    database.close()
    shutil.copytree(WEBAPP, os.path.join(folder, "web"), symlinks=False, ignore=shutil.ignore_patterns("config.json"))
    shutil.copy(WEBAPP_CONFIG, os.path.join(folder, "web", "config.json"))
    key = os.path.join(folder, "signing.key")
    subprocess.run(["openssl", "genrsa", "-out", key, "2048"], check=True, capture_output=True)
    public = subprocess.run(["openssl", "rsa", "-in", key, "-pubout"], check=True, capture_output=True).stdout.decode()

    process = None
    for _ in range(5):
        port = free_port()
        with open(os.path.join(folder, "glewlwyd.conf"), "w") as conf:
            conf.write(configuration(folder, port))
        process = subprocess.Popen(["glewlwyd", "--config-file=" + os.path.join(folder, "glewlwyd.conf")],
                                   stdout=subprocess.DEVNULL, stderr=open(os.path.join(folder, "stderr.log"), "w"))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and process.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/config.json", timeout=5) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                time.sleep(0.1)
        if process.poll() is None:
            break
    if process is None or process.poll() is not None:
        raise SystemExit("glewlwyd did not start: " + open(os.path.join(folder, "stderr.log")).read()[-500:])

    def stop(*_):
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    base = f"http://127.0.0.1:{port}"
    issuer = base + "/api/oidc"
    admin = API(base + "/api")
    admin.expect("POST", "/auth/", {"username": "admin", "password": "password"})
    admin.expect("POST", "/mod/plugin/", {
        "module": "oidc", "name": "oidc", "display_name": "OpenID Connect",
        "parameters": {
            "iss": issuer, "jwt-type": "rsa", "jwt-key-size": "256", "key": open(key).read(), "cert": public,
            "access-token-duration": 3600, "refresh-token-duration": 1209600, "code-duration": 600, "refresh-token-rolling": True,
            "allow-non-oidc": False, "auth-type-code-enabled": True, "auth-type-token-enabled": False, "auth-type-id-token-enabled": True,
            "auth-type-none-enabled": False, "auth-type-password-enabled": False, "auth-type-client-enabled": False,
            "auth-type-refresh-enabled": True, "pkce-allowed": True, "pkce-method-plain-allowed": False, "scope": [], "claims": [],
            "email-claim": "mandatory", "name-claim": "on-demand",
        },
    })
    # "openid email", as a relying party asks: glewlwyd knows only "openid" until told of "email".
    admin.expect("POST", "/scope/", {"name": "email", "display_name": "Email address", "description": "The user's email address",
                                     "password_required": False, "scheme": {}})
    client = {"client_id": "stratus-web", "secret": "client-secret-" + os.urandom(8).hex()}
    admin.expect("POST", "/client/", {
        "client_id": client["client_id"], "name": "Stratus", "confidential": True, "password": client["secret"],
        "token_endpoint_auth_method": ["client_secret_basic", "client_secret_post"], "redirect_uri": options.redirect_uri,
        "authorization_type": ["code", "refresh_token"], "scope": ["openid", "email"], "enabled": True,
    })
    user = {"username": "ada", "password": "ada-password-" + os.urandom(4).hex(), "email": "ada@example.com"}
    admin.expect("POST", "/user/", {**user, "name": "Ada", "scope": ["openid", "email"], "enabled": True})
    person = API(base + "/api")
    person.expect("POST", "/auth/", {"username": user["username"], "password": user["password"]})
    person.expect("PUT", "/auth/grant/" + client["client_id"], {"scope": "openid email"})

    print("ready " + json.dumps({
        "issuer": issuer, "clientID": client["client_id"], "clientSecret": client["secret"],
        "username": user["username"], "password": user["password"], "email": user["email"],
    }), flush=True)
    while True:
        try:
            os.kill(options.parent, 0)
        except OSError:
            stop()
        if process.poll() is not None:
            sys.exit("glewlwyd ended")
        time.sleep(0.5)


if __name__ == "__main__":
    main()
