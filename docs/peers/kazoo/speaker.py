#!/usr/bin/python3
"""A peer of this project's speaker for the chaos soak: a leader election
on kazoo's Election (Debian's python3-kazoo), written the plain way that
kazoo's documentation shows (Election(path, identifier).run(leader
function)), with no fixes of ours. It keeps the contract of
docs/chaos.md (flags, lines, SIGTERM), so that `speaker chaos --cmd`
can run it:

    bin/speaker chaos --cmd '/usr/bin/python3 docs/peers/kazoo/speaker.py
        --zk {servers} --name {name} --out {out} --path {path} --session {session}'

What the soak finds in it is explained in docs/chaos.md: the leader
function is never told that the leadership was lost.
"""

import argparse
import logging
import os
import signal
import threading
import time
from datetime import datetime, timezone

from kazoo.client import KazooClient


def seconds(text):
    """A duration as Go prints it (2s, 1.5s, 500ms) in seconds."""
    if text.endswith("ms"):
        return float(text[:-2]) / 1000
    return float(text.rstrip("s"))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--zk", default="127.0.0.1:2181", help="ZooKeeper servers, host:port,...")
    p.add_argument("--name", required=True, help="the name on its lines")
    p.add_argument("--out", default="out.txt", help="the file it appends its lines to")
    p.add_argument("--path", default="/election", help="the election's znode")
    p.add_argument("--session", default="2s", help="the session timeout, such as 2s")
    p.add_argument("--interval", default="200ms", help="time between two lines while it leads")
    args = p.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    log = logging.getLogger(args.name)

    # The contract: SIGTERM is handled before we connect.
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    signal.signal(signal.SIGINT, lambda *_: stopping.set())

    out = os.open(args.out, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    counter = 0

    def lead():
        """The leader function: a line every interval until SIGTERM."""
        nonlocal counter
        log.info("elected: writing")
        while not stopping.is_set():
            counter += 1
            now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
            os.write(out, f"{now} {args.name} {counter}\n".encode())  # one append, the whole line
            stopping.wait(seconds(args.interval))

    zk = KazooClient(hosts=args.zk, timeout=seconds(args.session))
    zk.start()
    election = zk.Election(args.path, args.name)

    def stand():
        """Stand in the election until SIGTERM, again if it fails."""
        while not stopping.is_set():
            try:
                election.run(lead)
            except Exception as e:  # the connection lost while it waited
                log.info("Election.run: %r; trying again in a second", e)
                stopping.wait(1)

    worker = threading.Thread(target=stand, daemon=True)
    worker.start()
    while not stopping.wait(0.2):
        pass
    log.info("SIGTERM: stop writing, leave the election, close the session")
    election.cancel()
    worker.join(2)
    zk.stop()
    zk.close()


if __name__ == "__main__":
    main()
