// SPDX-License-Identifier: GPL-2.0
/*
 * byo_reno: Reno with a configurable multiplicative decrease, a congestion
 * control of "your own" for testbed/tests/test_interface.sh, which builds it
 * against the running kernel and runs it through the testbed by file
 * (--cc byo_reno=/path/tcp_byo_reno.ko:beta_pct=70).
 *
 * beta_pct: the window after a loss, in percent of the window before it
 * (1..99, default 50 as Reno); other values are refused with -EINVAL.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <net/tcp.h>

static unsigned int beta_pct = 50;

static int byo_set_beta(const char *val, const struct kernel_param *kp)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v) || v < 1 || v > 99)
		return -EINVAL;
	WRITE_ONCE(beta_pct, v);
	return 0;
}

static const struct kernel_param_ops byo_beta_ops = {
	.set = byo_set_beta,
	.get = param_get_uint,
};

module_param_cb(beta_pct, &byo_beta_ops, &beta_pct, 0644);
MODULE_PARM_DESC(beta_pct, "window after a loss, percent of the window before (1..99)");

static u32 byo_ssthresh(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return max(tcp_snd_cwnd(tp) * READ_ONCE(beta_pct) / 100, 2U);
}

static struct tcp_congestion_ops byo_reno __read_mostly = {
	.name		= "byo_reno",
	.owner		= THIS_MODULE,
	.ssthresh	= byo_ssthresh,
	.cong_avoid	= tcp_reno_cong_avoid,
	.undo_cwnd	= tcp_reno_undo_cwnd,
};

static int __init byo_register(void)
{
	return tcp_register_congestion_control(&byo_reno);
}

static void __exit byo_unregister(void)
{
	tcp_unregister_congestion_control(&byo_reno);
}

module_init(byo_register);
module_exit(byo_unregister);

MODULE_AUTHOR("PowerTCP for Linux developers");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Reno with a configurable decrease (testbed test module)");
