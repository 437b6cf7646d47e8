# SPDX-License-Identifier: GPL-2.0
"""The testbed's three topologies as a Mininet custom-topology file.

    mn --custom testbed/mininet/topos.py --topo incast,10 \\
       --switch lxbr --controller none --test pingall

(Debian's mininet and bridge-utils; no Open vSwitch, no controller: every
switch is a Linux bridge.) The nodes, addresses and ports are those of the
netns backend (testbed/topology.sh, testbed/leafspine.sh), on one layer-2
segment instead of routed subnets:

  incast,N          the incast's star: the receiver rcv (10.0.0.2) on s1's
                    first port (s1-eth1, the bottleneck: the switch's
                    egress towards the receiver) and 1 + N senders h1 ..
                    hN+1 (10.0.i.2): the long flow's host and N incast
                    senders, as testbed/incast.sh --senders N
  dumbbell,N        the fairness's N senders h1 .. hN on s1, the receiver
                    rcv on s2, s1-s2 the shared link (s1-eth1, s1's egress
                    towards s2, is the bottleneck)
  leafspine,L,H     L leaves (leaf1 ..) of H hosts each under one spine
                    (spine1): host h (1-based) on leaf l at index i is
                    10.l.i.2, hosts numbered leaf by leaf, as the web
                    search's fabric (default 2 leaves of 4)

Every host's interface is eth0, as in the netns backend. The links are
plain veth pairs: the rates, delays and buffers are the testbed's tc
settings, which testbed/incast.sh --backend mininet applies with the same
commands as the netns backend (testbed/topology.sh); from the mn command
line the links are unshaped (--link tc would shape them Mininet's own way,
not the testbed's).
"""

from mininet.topo import Topo


def _dpid(n):
    return "%016x" % n


class IncastTopo(Topo):
    "The incast's star: rcv and 1 + N senders around one switch."

    def build(self, senders=10):  # pylint: disable=arguments-differ
        if not 1 <= senders <= 200:
            raise ValueError("incast,N: N from 1 to 200")
        s1 = self.addSwitch("s1", dpid=_dpid(1))
        rcv = self.addHost("rcv", ip="10.0.0.2/16")
        self.addLink(rcv, s1, intfName1="eth0")  # s1-eth1: the bottleneck
        for i in range(1, senders + 2):
            h = self.addHost("h%d" % i, ip="10.0.%d.2/16" % i)
            self.addLink(h, s1, intfName1="eth0")


class DumbbellTopo(Topo):
    "N senders on s1, the receiver on s2, one shared link s1-s2."

    def build(self, senders=4):  # pylint: disable=arguments-differ
        if not 1 <= senders <= 200:
            raise ValueError("dumbbell,N: N from 1 to 200")
        s1 = self.addSwitch("s1", dpid=_dpid(1))
        s2 = self.addSwitch("s2", dpid=_dpid(2))
        self.addLink(s1, s2)  # s1-eth1: the bottleneck
        rcv = self.addHost("rcv", ip="10.0.0.2/16")
        self.addLink(rcv, s2, intfName1="eth0")
        for i in range(1, senders + 1):
            h = self.addHost("h%d" % i, ip="10.0.%d.2/16" % i)
            self.addLink(h, s1, intfName1="eth0")


class LeafSpineTopo(Topo):
    "L leaves of H hosts under one spine, as the web search's fabric."

    def build(self, leaves=2, hosts_per_leaf=4):  # pylint: disable=arguments-differ
        if not (1 <= leaves <= 99 and 1 <= hosts_per_leaf <= 250):
            raise ValueError("leafspine,L,H: L from 1 to 99, H from 1 to 250")
        spine = self.addSwitch("spine1", dpid=_dpid(1000))
        h = 0
        for l in range(1, leaves + 1):
            leaf = self.addSwitch("leaf%d" % l, dpid=_dpid(l))
            self.addLink(leaf, spine)
            for i in range(1, hosts_per_leaf + 1):
                h += 1
                host = self.addHost("h%d" % h, ip="10.%d.%d.2/8" % (l, i))
                self.addLink(host, leaf, intfName1="eth0")


# mn --topo NAME[,ARGS]
topos = {"incast": IncastTopo, "dumbbell": DumbbellTopo,
         "leafspine": LeafSpineTopo}
