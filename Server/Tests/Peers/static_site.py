#!/usr/bin/python3
"""A web site of static files for browser tests: a web app on an origin of its own (Python's http.server).

Usage: static_site.py FOLDER --parent PID

Serves FOLDER on a free loopback port and prints "ready PORT" once it accepts connections. It ends when process
PID (the test's) is gone.
"""
import argparse
import functools
import http.server
import os
import threading
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--parent", type=int, required=True)
    options = parser.parse_args()

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format, *args):
            pass

    handler = functools.partial(Handler, directory=options.folder)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print("ready %d" % server.server_address[1], flush=True)
    while True:
        time.sleep(1)
        try:
            os.kill(options.parent, 0)
        except ProcessLookupError:
            return


if __name__ == "__main__":
    main()
