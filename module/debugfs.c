// SPDX-License-Identifier: GPL-2.0
/*
 * The debugfs ABI, /sys/kernel/debug/memcg_statctl/ (module/ABI.md).
 * Every file is root-only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>

#include "attribution.h"
#include "bpf_share.h"
#include "compat.h"
#include "counters.h"
#include "debugfs.h"
#include "flush.h"
#include "flush_reasons.h"
#include "knob.h"
#include "staleness.h"
#include "stock.h"
#include "version.h"

static struct dentry *mcs_dir;

static int mcs_version_show(struct seq_file *m, void *v)
{
	seq_printf(m, "module %s\n", MCS_VERSION);
	seq_printf(m, "abi %d\n", MCS_ABI);
	seq_printf(m, "kernel %s\n", utsname()->release);
	seq_printf(m, "generation %s\n", MCS_GEN_NAME);
	seq_printf(m, "flush_model %s\n", MCS_FLUSH_MODEL);
	seq_printf(m, "stock_model %s\n", MCS_STOCK_MODEL);
	seq_printf(m, "flush_control %s\n", mcs_flush_state());
	/* Under lockdown debugfs refuses writes: knobs only as parameters. */
	seq_printf(m, "lockdown %s\n",
		   security_locked_down(LOCKDOWN_DEBUGFS) ? "debugfs" : "none");
	seq_printf(m, "pending %s\n", mcs_staleness_state());
	seq_printf(m, "bpf_share %s\n", mcs_bpf_share_state());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mcs_version);

static int mcs_hooks_show(struct seq_file *m, void *v)
{
	mcs_hook_table_show(m, &mcs_backend_hooks);
	mcs_hook_table_show(m, &mcs_update_hooks);
	mcs_hook_table_show(m, &mcs_stock_hooks);
	mcs_hook_table_show(m, &mcs_attr_hooks);
	mcs_hook_table_show(m, &mcs_bpf_hooks);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mcs_hooks);

static int mcs_stats_show(struct seq_file *m, void *v)
{
	int c;

	for (c = 0; c < MCS_NR_COUNTERS; c++)
		if (mcs_counter_present(c) && mcs_counter_name(c))
			seq_printf(m, "%s %llu\n", mcs_counter_name(c),
				   mcs_counter_read(c));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mcs_stats);

/* `lo hi count` per bucket of counters.h's flush latency histogram. */
static int mcs_flush_latency_show(struct seq_file *m, void *v)
{
	unsigned int k;

	for (k = 0; k < MCS_FLUSH_LAT_BUCKETS; k++) {
		u64 n = mcs_counter_read(MCS_FLUSH_LAT_FIRST + k);
		u64 lo = k ? 1ULL << (k - 1) : 0;

		if (k == MCS_FLUSH_LAT_BUCKETS - 1)
			seq_printf(m, "%llu inf %llu\n", lo, n);
		else
			seq_printf(m, "%llu %llu %llu\n", lo, 1ULL << k, n);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mcs_flush_latency);

static int mcs_pending_file_show(struct seq_file *m, void *v)
{
	return mcs_staleness_show(m);
}
DEFINE_SHOW_ATTRIBUTE(mcs_pending_file);

static int mcs_flush_reasons_file_show(struct seq_file *m, void *v)
{
	return mcs_flush_reasons_show(m);
}
DEFINE_SHOW_ATTRIBUTE(mcs_flush_reasons_file);

static int mcs_attr_file_show(struct seq_file *m, void *v)
{
	return mcs_attr_show(m);
}
DEFINE_SHOW_ATTRIBUTE(mcs_attr_file);

/*
 * One write is one value, from offset 0, fitting the buffer. One trailing
 * newline is allowed (echo adds it). Copies the value without it into @buf
 * (MCS_KNOB_MAX_LEN + 2 bytes).
 */
static int mcs_write_value(const char __user *ubuf, size_t count,
			   loff_t *ppos, char *buf)
{
	size_t len = count;

	if (*ppos || !count || count > MCS_KNOB_MAX_LEN + 1)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (buf[len - 1] == '\n')
		buf[--len] = '\0';
	/* empty, too long, or a NUL inside: not one value */
	if (!len || len > MCS_KNOB_MAX_LEN || strlen(buf) != len)
		return -EINVAL;
	return 0;
}

static ssize_t mcs_reset_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	char buf[MCS_KNOB_MAX_LEN + 2];
	int ret = mcs_write_value(ubuf, count, ppos, buf);

	if (ret)
		return ret;
	if (strcmp(buf, "1"))
		return -EINVAL;
	mcs_counters_reset();
	mcs_flush_reasons_reset();
	mcs_attr_reset();
	return count;
}

static const struct file_operations mcs_reset_fops = {
	.owner = THIS_MODULE,
	.write = mcs_reset_write,
	.llseek = noop_llseek,
};

static int mcs_knob_show(struct seq_file *m, void *v)
{
	const struct mcs_knob *knob = m->private;

	knob->show(m);
	return 0;
}

static int mcs_knob_open(struct inode *inode, struct file *file)
{
	return single_open(file, mcs_knob_show, inode->i_private);
}

static ssize_t mcs_knob_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	const struct mcs_knob *knob = file_inode(file)->i_private;
	char buf[MCS_KNOB_MAX_LEN + 2];
	int ret = mcs_write_value(ubuf, count, ppos, buf);

	if (!ret)
		ret = knob->set(buf);
	return ret ? ret : count;
}

static const struct file_operations mcs_knob_fops = {
	.owner = THIS_MODULE,
	.open = mcs_knob_open,
	.read = seq_read,
	.write = mcs_knob_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static void mcs_debugfs_knob(const struct mcs_knob *knob)
{
	debugfs_create_file(knob->name, 0600, mcs_dir, (void *)knob,
			    &mcs_knob_fops);
}

int mcs_debugfs_init(void)
{
	unsigned int i;

	mcs_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(mcs_dir)) {
		pr_err("cannot create debugfs directory: %ld\n",
		       PTR_ERR(mcs_dir));
		return PTR_ERR(mcs_dir);
	}
	debugfs_create_file("version", 0400, mcs_dir, NULL, &mcs_version_fops);
	debugfs_create_file("hooks", 0400, mcs_dir, NULL, &mcs_hooks_fops);
	debugfs_create_file("stats", 0400, mcs_dir, NULL, &mcs_stats_fops);
	debugfs_create_file("reset", 0200, mcs_dir, NULL, &mcs_reset_fops);
	/* where flushes are counted: with flush control */
	if (mcs_counter_present(MCS_FLUSH_PERFORMED)) {
		debugfs_create_file("flush_latency", 0400, mcs_dir, NULL,
				    &mcs_flush_latency_fops);
		debugfs_create_file("flush_reasons", 0400, mcs_dir, NULL,
				    &mcs_flush_reasons_file_fops);
	}
	if (strcmp(mcs_staleness_state(), "missing"))
		debugfs_create_file("pending", 0400, mcs_dir, NULL,
				    &mcs_pending_file_fops);
	for (i = 0; i < mcs_flush_nr_knobs; i++)
		mcs_debugfs_knob(&mcs_flush_knobs[i]);
	for (i = 0; i < mcs_stock_nr_knobs; i++)
		mcs_debugfs_knob(&mcs_stock_knobs[i]);
	debugfs_create_file("stock_by_cgroup", 0400, mcs_dir, NULL,
			    &mcs_attr_file_fops);
	for (i = 0; i < mcs_attr_nr_knobs; i++)
		mcs_debugfs_knob(&mcs_attr_knobs[i]);
	return 0;
}

void mcs_debugfs_exit(void)
{
	debugfs_remove_recursive(mcs_dir);
}
