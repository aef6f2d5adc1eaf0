#!/usr/bin/python3
"""An SMTP server for tests (Debian's python3-aiosmtpd): keeps each message it accepts as JSON in a folder.

Usage: smtp_sink.py FOLDER --parent PID [--auth USER:PASSWORD] [--starttls CERT KEY] [--implicit-tls CERT KEY] [--refuse N]

Listens on a free loopback port and prints "ready PORT" once it accepts connections. Each accepted message becomes
FOLDER/NNNN.json: the envelope (sender, recipients), whether the session used TLS and who authenticated, and the
message as Python's email package reads it (headers decoded, the text and HTML parts). With --refuse N the first
N messages are answered "451" (try again later), as a server that is struggling does. It ends when process PID
(the test's) is gone.
"""
import argparse
import asyncio
import email
import email.policy
import json
import os
import ssl

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--auth")
    parser.add_argument("--starttls", nargs=2, metavar=("CERT", "KEY"))
    parser.add_argument("--implicit-tls", nargs=2, metavar=("CERT", "KEY"))
    parser.add_argument("--refuse", type=int, default=0)
    parser.add_argument("--parent", type=int, required=True)
    options = parser.parse_args()
    os.makedirs(options.folder, exist_ok=True)
    state = {"count": 0, "refused": 0}

    class Handler:
        async def handle_DATA(self, server, session, envelope):
            if state["refused"] < options.refuse:
                state["refused"] += 1
                return "451 4.3.0 try again later"
            message = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
            text = message.get_body(preferencelist=("plain",))
            html = message.get_body(preferencelist=("html",))
            state["count"] += 1
            kept = {
                "mailFrom": envelope.mail_from,
                "rcptTos": envelope.rcpt_tos,
                "tls": session.ssl is not None or implicit is not None,
                "authenticated": session.auth_data.login.decode() if session.auth_data else None,
                "from": str(message["From"]),
                "to": str(message["To"]),
                "subject": str(message["Subject"]),
                "messageID": str(message["Message-ID"]),
                "date": str(message["Date"]),
                "text": text.get_content() if text else None,
                "html": html.get_content() if html else None,
            }
            path = os.path.join(options.folder, "%04d.json" % state["count"])
            with open(path + ".partial", "w") as file:
                json.dump(kept, file)
            os.rename(path + ".partial", path)
            return "250 2.0.0 kept"

    def authenticate(server, session, envelope, mechanism, data):
        if not options.auth or not isinstance(data, LoginPassword):
            return AuthResult(success=False, handled=False)
        user, password = options.auth.split(":", 1)
        accepted = data.login.decode() == user and data.password.decode() == password
        return AuthResult(success=accepted, handled=False, auth_data=data if accepted else None)

    def context(pair):
        if not pair:
            return None
        made = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        made.load_cert_chain(pair[0], pair[1])
        return made

    starttls = context(options.starttls)
    implicit = context(options.implicit_tls)

    def factory():
        return SMTP(
            Handler(),
            hostname="sink.test",
            tls_context=starttls,
            require_starttls=starttls is not None,
            authenticator=authenticate if options.auth else None,
            auth_required=bool(options.auth),
            auth_require_tls=bool(starttls or implicit),
        )

    async def serve():
        server = await asyncio.get_running_loop().create_server(factory, "127.0.0.1", 0, ssl=implicit)
        print("ready %d" % server.sockets[0].getsockname()[1], flush=True)
        while True:
            await asyncio.sleep(1)
            try:
                os.kill(options.parent, 0)
            except ProcessLookupError:
                return

    asyncio.run(serve())


if __name__ == "__main__":
    main()
