# SPDX-License-Identifier: GPL-2.0
"""The testbed's three topologies as a Mininet custom-topology file.

    mn --custom testbed/mininet/topos.py --topo incast,10 \\
       --controller none --test pingall

(Debian's mininet; no Open vSwitch, no controller, no bridge.) Every switch
is a router, as in the netns backend: a Mininet node with IP forwarding
(Mininet's LinuxRouter example), one /24 per port. A layer-2 switch (a
Linux bridge) would leave every packet waiting in its queue charged to the
sending socket, whose TCP small queues would then throttle it instead of
the bottleneck (docs/TESTBED.md, "The Mininet backend"); a router receives
each packet at the IP layer, which releases it from its sender. The nodes,
addresses, routes and switch port names are those of the netns backend
(testbed/lib/topology.sh, testbed/lib/leafspine.sh):

  incast,N          the incast's star: the receiver rcv (10.0.0.2) on the
                    router s1's port to_rcv (10.0.0.1; its egress is the
                    bottleneck) and 1 + N senders h1 .. hN+1 (10.0.i.2, on
                    s1's port to_hi, 10.0.i.1): the long flow's host and N
                    incast senders, as testbed/incast/run.sh --senders N
  dumbbell,N        the fairness's N senders h1 .. hN on s1, the receiver
                    rcv on s2, s1-s2 the shared link (10.100.0.1 -
                    10.100.0.2; s1's port to_s2 is the bottleneck)
  leafspine,L,H     L leaves (leaf1 ..) of H hosts each under one spine
                    (spine1): host h (1-based) on leaf l at index i is
                    10.l.i.2 on the leaf's port to_hh (10.l.i.1), hosts
                    numbered leaf by leaf; leaf l's uplink 10.100.l.1 to
                    the spine's port to_ll (10.100.l.2), as the web
                    search's fabric (default 2 leaves of 4)

Every host's interface is eth0, its default route via its router, as in
the netns backend. The links are plain veth pairs: the rates, delays and
buffers are the testbed's tc settings, which testbed/incast/run.sh --backend
mininet applies with the same commands as the netns backend
(testbed/lib/topology.sh); from the mn command line the links are unshaped
(--link tc would shape them Mininet's own way, not the testbed's).
"""

from mininet.node import Node
from mininet.topo import Topo


class Router(Node):
    """A node that forwards IPv4 (Mininet's LinuxRouter example), with
    routes: the parameter routes, a list of "ip route add" arguments."""

    def config(self, routes=(), **params):  # pylint: disable=arguments-differ
        r = super().config(**params)
        self.cmd("sysctl -qw net.ipv4.ip_forward=1")
        for route in routes:
            self.cmd("ip route add " + route)
        return r


def _host(topo, name, addr, gw):
    return topo.addHost(name, ip=addr + "/24", defaultRoute="via " + gw)


def _link(topo, host, router, port, host_addr, router_addr):
    "host's eth0 (host_addr/24) to router's port (router_addr/24)."
    topo.addLink(host, router, intfName1="eth0", intfName2=port,
                 params1={"ip": host_addr + "/24"},
                 params2={"ip": router_addr + "/24"})


def _receiver(topo, router):
    "The receiver rcv (10.0.0.2, gateway .1 on the router's to_rcv)."
    _link(topo, _host(topo, "rcv", "10.0.0.2", "10.0.0.1"), router, "to_rcv",
          "10.0.0.2", "10.0.0.1")


def _senders(topo, router, ids):
    """Senders h<i> (10.0.<i>.2, the 256th 10.1.0.2: the netns backend's
    tb_host_net; gateway .1 on the router's to_h<i>)."""
    for i in ids:
        net = "10.%d.%d" % (i // 256, i % 256)
        a, gw = net + ".2", net + ".1"
        _link(topo, _host(topo, "h%d" % i, a, gw), router, "to_h%d" % i,
              a, gw)


class IncastTopo(Topo):
    "The incast's star: rcv and 1 + N senders around one router."

    def build(self, senders=10):  # pylint: disable=arguments-differ
        if not 1 <= senders <= 255:
            raise ValueError("incast,N: N from 1 to 255")
        s1 = self.addNode("s1", cls=Router, ip="10.0.0.1/24")
        _receiver(self, s1)
        _senders(self, s1, range(1, senders + 2))


class DumbbellTopo(Topo):
    "N senders on s1, the receiver on s2, one shared link s1-s2."

    def build(self, senders=4):  # pylint: disable=arguments-differ
        if not 1 <= senders <= 200:
            raise ValueError("dumbbell,N: N from 1 to 200")
        s1 = self.addNode("s1", cls=Router, ip="10.100.0.1/24",
                          routes=["default via 10.100.0.2"])
        s2 = self.addNode("s2", cls=Router, ip="10.100.0.2/24",
                          routes=["10.0.0.0/16 via 10.100.0.1"])
        self.addLink(s1, s2, intfName1="to_s2", intfName2="to_s1",
                     params1={"ip": "10.100.0.1/24"},
                     params2={"ip": "10.100.0.2/24"})
        _receiver(self, s2)
        _senders(self, s1, range(1, senders + 1))


class LeafSpineTopo(Topo):
    "L leaves of H hosts under one spine, as the web search's fabric."

    def build(self, leaves=2, hosts_per_leaf=4):  # pylint: disable=arguments-differ
        if not (1 <= leaves <= 99 and 1 <= hosts_per_leaf <= 250):
            raise ValueError("leafspine,L,H: L from 1 to 99, H from 1 to 250")
        spine = self.addNode("spine1", cls=Router, ip="10.100.1.2/24",
                             routes=["10.%d.0.0/16 via 10.100.%d.1" % (l, l)
                                     for l in range(1, leaves + 1)])
        h = 0
        for l in range(1, leaves + 1):
            up = "10.100.%d.1" % l
            leaf = self.addNode("leaf%d" % l, cls=Router, ip=up + "/24",
                                routes=["default via 10.100.%d.2" % l])
            self.addLink(leaf, spine, intfName1="up0", intfName2="to_l%d" % l,
                         params1={"ip": up + "/24"},
                         params2={"ip": "10.100.%d.2/24" % l})
            for i in range(1, hosts_per_leaf + 1):
                h += 1
                a, gw = "10.%d.%d.2" % (l, i), "10.%d.%d.1" % (l, i)
                host = _host(self, "h%d" % h, a, gw)
                _link(self, host, leaf, "to_h%d" % h, a, gw)


# mn --topo NAME[,ARGS]
topos = {"incast": IncastTopo, "dumbbell": DumbbellTopo,
         "leafspine": LeafSpineTopo}
