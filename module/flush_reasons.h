/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MCS_FLUSH_REASONS_H
#define MCS_FLUSH_REASONS_H

#include <linux/seq_file.h>
#include <linux/types.h>

#include "flush_backend.h"

/*
 * Why flushes are requested (`flush_reasons`, module/ABI.md): per
 * requester class and per calling function, requests and flushes
 * performed. A reader's request is classed by its caller (reclaim,
 * refault, or any other reader) when the file is read, from the caller's
 * symbol; the other origins are their own classes.
 */

/**
 * mcs_flush_reason_count() - count one request and its outcome
 * @origin: who asked (flush_backend.h)
 * @caller: the return address of the call into the flush choke point, or
 *          0 when another tracer's return trampoline hides it
 * @performed: whether the request flushed
 *
 * Context: wherever flushes are requested (process context; 6.1's
 * irq-safe readers with interrupts off).
 */
void mcs_flush_reason_count(enum mcs_flush_origin origin, unsigned long caller,
			    bool performed);

/**
 * mcs_flush_reasons_show() - print `flush_reasons`
 * @m: the seq_file
 *
 * Context: process context, may sleep.
 * Return: 0, or -ENOMEM.
 */
int mcs_flush_reasons_show(struct seq_file *m);

/**
 * mcs_flush_reasons_reset() - start every count again from 0
 */
void mcs_flush_reasons_reset(void);

#endif /* MCS_FLUSH_REASONS_H */
