/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The line rate from the egress device (line_rate_auto=1): a cache of the
 * link speed of every network device that reports a real one, filled in
 * process context, read without sleeping on every ACK.
 *
 * A device's speed comes from __ethtool_get_link_ksettings(), which needs
 * the RTNL lock (a mutex) and calls a driver that may sleep. A congestion
 * control's init runs in softirq on a passive open (tcp_rcv_state_process()
 * -> tcp_init_transfer(), under the socket's spinlock), and cong_control on
 * every ACK there too: neither may take RTNL. So a netdevice notifier reads
 * the speed when it can change, with RTNL held, in process context:
 * NETDEV_REGISTER, NETDEV_UP and NETDEV_CHANGE (carrier changes, which is
 * when a NIC renegotiates its speed), NETDEV_CHANGENAME for the listing;
 * NETDEV_UNREGISTER drops the device. register_netdevice_notifier() replays
 * REGISTER and UP for every device of every namespace (from a work item
 * queued at load, see pt_ls_init()): that is the scan of the devices
 * present. The flow looks its route's device (dst->dev,
 * as tcp_init_transfer() itself reads __sk_dst_get() just before init) up
 * in an RCU hash table keyed by the device pointer, which is unique across
 * namespaces and stays valid until NETDEV_UNREGISTER has removed the entry.
 * It does so on every ACK, as the flow's line rate is not kept in its
 * state (icsk_ca_priv is full): a lookup while the table is empty (no
 * device reports a speed, as in the testbed's namespaces) is one load, and
 * otherwise one hash of a pointer and a short bucket walk under RCU, the
 * same cost whether or not a speed changed. Following every ACK also
 * follows a route that moves to another device.
 *
 * Only devices backed by hardware count: those with a parent device (PCI,
 * USB, virtio; /sys/class/net/DEV/device exists). Virtual devices report
 * made-up speeds (veth always 10000 Mb/s, tun 10 Mb/s) or, for bonds, the
 * sum over their ports, which no single flow can reach; for them, and for
 * hardware that reports no speed, the line_rate_mbps parameter applies.
 *
 */
#ifndef _POWERTCP_LINKSPEED_H
#define _POWERTCP_LINKSPEED_H

#include <linux/ethtool.h>
#include <linux/hashtable.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/dst.h>
#include <net/net_namespace.h>
#include <net/sock.h>

/* A device whose speed auto mode uses. Written under RTNL only. */
struct pt_ls_dev {
	struct hlist_node node;
	struct rcu_head rcu;
	const struct net_device *dev;	/* the key; compared, never followed */
	u32 mbps;
	int ifindex;
	unsigned int netns;		/* inode of its network namespace */
	char name[IFNAMSIZ];
};

static DEFINE_HASHTABLE(pt_ls_devs, 6);
static unsigned int pt_ls_count;	/* entries; written under RTNL */

/* Under rcu_read_lock() or RTNL. */
static struct pt_ls_dev *pt_ls_find(const struct net_device *dev)
{
	struct pt_ls_dev *e;

	hash_for_each_possible_rcu(pt_ls_devs, e, node, (unsigned long)dev,
				   lockdep_rtnl_is_held())
		if (e->dev == dev)
			return e;
	return NULL;
}

/* The speed of @dev in Mb/s if it is hardware and says; else 0. RTNL. */
static u32 pt_ls_read(struct net_device *dev)
{
	struct ethtool_link_ksettings ks;

	ASSERT_RTNL();
	if (!dev->dev.parent || __ethtool_get_link_ksettings(dev, &ks))
		return 0;
	if (ks.base.speed == SPEED_UNKNOWN || !ks.base.speed)
		return 0;
	return ks.base.speed;
}

/* Cache @dev's speed again (or drop it: @gone, or no speed). RTNL. */
static void pt_ls_update(struct net_device *dev, bool gone)
{
	struct pt_ls_dev *old = pt_ls_find(dev), *e = NULL;
	u32 mbps = gone ? 0 : pt_ls_read(dev);

	if (mbps) {
		e = kzalloc(sizeof(*e), GFP_KERNEL);
		if (e) {
			e->dev = dev;
			e->mbps = mbps;
			e->ifindex = dev->ifindex;
			e->netns = dev_net(dev)->ns.inum;
			strscpy(e->name, dev->name, sizeof(e->name));
		}
	}
	/* Entries are replaced whole, so a reader never sees half of one. */
	if (old && e) {
		hlist_replace_rcu(&old->node, &e->node);
	} else if (old) {
		hash_del_rcu(&old->node);
		WRITE_ONCE(pt_ls_count, pt_ls_count - 1);
	} else if (e) {
		hash_add_rcu(pt_ls_devs, &e->node, (unsigned long)dev);
		WRITE_ONCE(pt_ls_count, pt_ls_count + 1);
	}
	if (old)
		kfree_rcu(old, rcu);
}

static int pt_ls_event(struct notifier_block *nb, unsigned long event,
		       void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	switch (event) {
	case NETDEV_REGISTER:
	case NETDEV_UP:
	case NETDEV_CHANGE:
	case NETDEV_CHANGENAME:
		pt_ls_update(dev, false);
		break;
	case NETDEV_UNREGISTER:
		pt_ls_update(dev, true);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block pt_ls_notifier = {
	.notifier_call = pt_ls_event,
};

/*
 * The speed of the device @sk's route leaves by, in Mb/s; 0 if unknown (a
 * virtual device, no speed, no route). Never sleeps: called with the
 * socket locked, in softirq or process context, on every ACK.
 */
static __always_inline u32 pt_ls_sk_mbps(struct sock *sk)
{
	const struct dst_entry *dst;
	const struct pt_ls_dev *e;
	u32 mbps = 0;

	if (!READ_ONCE(pt_ls_count))
		return 0;
	rcu_read_lock();
	dst = __sk_dst_get(sk);
	if (dst && dst->dev) {
		e = pt_ls_find(dst->dev);
		if (e)
			mbps = e->mbps;
	}
	rcu_read_unlock();
	return mbps;
}

/*
 * The listing: one line per device whose speed is used, "NAME ifindex N
 * netns INODE MBPS". Any other device: line_rate_mbps.
 */
static int pt_ls_list(char *buf, const struct kernel_param *kp)
{
	const struct pt_ls_dev *e;
	int n = 0, bkt;

	rcu_read_lock();
	hash_for_each_rcu(pt_ls_devs, bkt, e, node)
		n += scnprintf(buf + n, PAGE_SIZE - n,
			       "%s ifindex %d netns %u %u\n", e->name,
			       e->ifindex, e->netns, e->mbps);
	rcu_read_unlock();
	return n;
}

static int pt_ls_list_set(const char *buf, const struct kernel_param *kp)
{
	return -EINVAL;		/* read-only, also at modprobe */
}

static const struct kernel_param_ops pt_ls_list_ops = {
	.set = pt_ls_list_set,
	.get = pt_ls_list,
};

/*
 * Registered from a work item, not from module_init: "ip route ... congctl
 * NAME" loads the module by request_module() with RTNL held and waits for
 * it, and register_netdevice_notifier() takes RTNL: a deadlock. Until the
 * work has run, flows use line_rate_mbps; from its replay on, the speeds.
 */
static bool pt_ls_registered;

static void pt_ls_register(struct work_struct *work)
{
	int err = register_netdevice_notifier(&pt_ls_notifier);

	if (err)
		pr_warn("%s: no link speeds (error %d): line_rate_mbps applies\n",
			KBUILD_MODNAME, err);
	else
		pt_ls_registered = true;
}

static DECLARE_WORK(pt_ls_work, pt_ls_register);

static void pt_ls_init(void)
{
	schedule_work(&pt_ls_work);
}

/* Replays UNREGISTER for every device, which empties the table. */
static void pt_ls_exit(void)
{
	flush_work(&pt_ls_work);
	if (pt_ls_registered)
		unregister_netdevice_notifier(&pt_ls_notifier);
	WARN_ON(!hash_empty(pt_ls_devs));
}

#endif /* _POWERTCP_LINKSPEED_H */
