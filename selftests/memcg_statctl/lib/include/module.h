/* SPDX-License-Identifier: GPL-2.0 */
/* Loading and unloading the module, and the kernel after its unload. */
#ifndef MEMCG_STATCTL_MODULE_H
#define MEMCG_STATCTL_MODULE_H

#include "statctl.h"

#define MODULE_NAME	"memcg_statctl"

/*
 * finit_module() of a .ko; a .ko.xz (.gz, .zst) is decompressed by
 * xz -dc (gzip, zstd) and loaded with init_module(). 0 or -errno.
 */
int module_load(const char *ko, const char *params);
int module_unload(const char *name, int timeout_ms);	/* delete_module */
bool module_loaded(const char *name);
/*
 * Unload the module if it is loaded, then load module_ko_path() with
 * @params, unless @params is NULL (unload only). 0 or -errno, said in a
 * diagnostic.
 */
int module_reload(const char *params);
/* /sys/module/NAME/refcnt, or -errno (-ENOENT when not loaded). */
int module_refcnt(const char *name);
/* Neither /sys/module/NAME nor the debugfs directory exists. */
bool module_gone(const char *name);
/*
 * The .ko of module NAME to (re)load: $ENV when set, else NAME.ko beside
 * the test program (a kselftest package carries it there), else the
 * file modules.dep names for the running kernel (where DKMS installs it,
 * compressed on 6.12 and later). NULL when there is none.
 */
const char *ko_find(const char *name, const char *env);
/* ko_find() of the module: $MEMCG_STATCTL_KO, beside, modules.dep. */
const char *module_ko_path(void);
/* Where module_ko_path() looked, for a diagnostic when it found nothing. */
#define KO_SOURCES	"$MEMCG_STATCTL_KO, " MODULE_NAME ".ko beside the test, modules.dep"

/*
 * Module loaded and its debugfs directory present. A module that is not
 * loaded is loaded first (kselftest's runner starts each program on its
 * own): module_ko_path() with $MEMCG_STATCTL_PARAMS, else modprobe. Where
 * it cannot be loaded (no module for this kernel, or the kernel refuses
 * the file: another kernel's build, an unsigned module under Secure Boot,
 * not root) the program skips (exit 4); a module whose init fails, or no
 * debugfs directory, is a failure.
 */
void require_module(void);

/*
 * After the module's unload, the kernel's flushing as without the module:
 * no function of TARGETS (read before the unload) keeps an ftrace callback
 * (enabled_functions: a callback of a module that is gone shows as a bare
 * address, so the lines are matched by function), a 20 MiB fault in a
 * fresh cgroup shows in its memory.stat within 4 s, and the kernel's
 * periodic flush work (flush_memcg_stats_dwork, seen through the
 * workqueue_execute_start tracepoint, cpus kept busy since it is
 * deferrable) runs at least once in 5 s. Returns the number of problems,
 * each said in a diagnostic; a check tracefs cannot make is said and
 * skipped.
 */
int kernel_flush_restored(const struct hook_targets *targets);

#endif
