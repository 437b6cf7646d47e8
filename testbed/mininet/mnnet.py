#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Build a topology of topos.py with Mininet and hold it for the testbed.

    /usr/bin/python3 testbed/mininet/mnnet.py TOPO[,ARG...]

Mininet builds the nodes and links (hosts and routers: namespaces with a
shell each, the routers forwarding IPv4; plain veth links; no switch, no
controller) and starts them. Then, on stdout, one line per node and per
link, and "ready":

    host NAME PID          a node's shell (its network namespace): a host
                           or a router (s1, s2, leafN, spine1)
    link NODE1 INTF1 NODE2 INTF2

The network stays up until stdin closes or SIGTERM/SIGINT, then Mininet
stops it (net.stop()) and this exits 0. ARP is dynamic, as in the netns
backend: a host resolves its router, a router its hosts. The testbed's
shell side (testbed/mininet/star.sh) names the namespaces and configures
the links.

Mininet's one global change at start, fixLimits (larger tcp_rmem, tcp_wmem,
netdev_max_backlog and so on in the namespace that new hosts copy), is
skipped: the netns backend runs on the kernel's defaults, and so must this.
A bad argument exits 2 with a one-line reason.
"""
import argparse
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def die(msg, code=1):
    sys.stderr.write("mnnet: %s\n" % msg)
    sys.exit(code)


class Parser(argparse.ArgumentParser):
    """A usage error in one line, as every other bad argument."""

    def error(self, message):
        die("%s (usage: %s)" % (message, self.format_usage().strip()[7:]), 2)


def parse_args():
    """The topology's name and arguments, as the command line gives them."""
    ap = Parser(
        description=__doc__.split("\n\n")[0],
        epilog="TOPO: a topology of testbed/mininet/topos.py with its "
        "integer arguments (incast,N; dumbbell,N; leafspine[,L,H]).")
    ap.add_argument("topo", metavar="TOPO[,ARG...]")
    return ap.parse_args().topo


def stop(_sig, _frame):
    raise SystemExit(0)


def main():
    spec = parse_args()
    # Mininet (topos.py imports it) only after the arguments: --help needs
    # neither.
    try:
        from mininet.link import Link
        from mininet.log import setLogLevel
        from mininet.net import Mininet
        import topos
    except ImportError as e:
        die("%s: Mininet's Python module is missing for %s (apt-get install "
            "mininet)" % (e, sys.executable))
    name, *args = spec.split(",")
    if name not in topos.topos:
        die("unknown topology '%s' (have: %s)"
            % (name, ", ".join(sorted(topos.topos))), 2)
    try:
        args = [int(a) for a in args]
        topo = topos.topos[name](*args)
    except (ValueError, TypeError) as e:
        die("%s: %s" % (spec, e), 2)
    if os.geteuid() != 0:
        die("must run as root")
    for tool, pkg in (("mnexec", "mininet"), ("ifconfig", "net-tools")):
        if not any(os.access(os.path.join(d, tool), os.X_OK)
                   for d in os.environ.get("PATH", "/usr/bin").split(":")
                   + ["/usr/sbin", "/sbin"]):
            die("%s missing (apt-get install %s)" % (tool, pkg))
    setLogLevel("warning")
    Mininet.inited = True  # no fixLimits: the kernel's defaults
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGHUP, stop)
    net = Mininet(topo=topo, controller=None, link=Link, build=False)
    try:
        net.build()
        net.start()
        for h in net.hosts:
            print("host %s %d" % (h.name, h.pid))
        for ln in net.links:
            print("link %s %s %s %s" % (ln.intf1.node.name, ln.intf1.name,
                                        ln.intf2.node.name, ln.intf2.name))
        print("ready", flush=True)
        sys.stdin.read()
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        net.stop()


if __name__ == "__main__":
    main()
