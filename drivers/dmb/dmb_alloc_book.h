/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Claim bookkeeping of one Designated Movable Block: which runs were
 * handed out (a list, so that a release must name a run exactly; which
 * pages are free is the block's CMA area's business).  Nothing here
 * touches memory or locks: dmb_alloc.c holds the handle's spinlock around
 * every call, and the KUnit suite drives it on books of its own.
 */
#ifndef _DMB_ALLOC_BOOK_H
#define _DMB_ALLOC_BOOK_H

#include <linux/list.h>
#include <linux/log2.h>
#include <linux/mm.h>

/**
 * struct dmb_claim - one run handed out by dmb_alloc()
 * @node: in &dmb_book.claims
 * @bitno: first page of the run, counted from the start of the block
 * @nr: pages in the run
 */
struct dmb_claim {
	struct list_head node;
	unsigned long bitno;
	unsigned long nr;
};

/**
 * struct dmb_book - claimed pages of a block
 * @count: pages in the block
 * @claims: the runs handed out, &struct dmb_claim
 * @claimed: pages in @claims
 */
struct dmb_book {
	unsigned long count;
	struct list_head claims;
	unsigned long claimed;
};

/*
 * Check the arguments of a claim; on success return 0 with the run length
 * in pages and the alignment mask in pages, else -EINVAL and a reason.
 */
static int dmb_book_check_alloc(const struct dmb_book *b, size_t size,
				size_t align, unsigned long *nr,
				unsigned long *mask, const char **why)
{
	if (!size) {
		*why = "size is 0";
		return -EINVAL;
	}
	if (size > (size_t)b->count << PAGE_SHIFT) {
		*why = "size is larger than the block";
		return -EINVAL;
	}
	if (align && !is_power_of_2(align)) {
		*why = "alignment is not a power of two";
		return -EINVAL;
	}
	if (align > (size_t)b->count << PAGE_SHIFT) {
		*why = "alignment is larger than the block";
		return -EINVAL;
	}
	*nr = DIV_ROUND_UP(size, PAGE_SIZE);
	*mask = align > PAGE_SIZE ? (align >> PAGE_SHIFT) - 1 : 0;
	return 0;
}

/* Record a claimed run as handed out. */
static void dmb_book_commit(struct dmb_book *b, struct dmb_claim *c,
			    unsigned long bitno, unsigned long nr)
{
	c->bitno = bitno;
	c->nr = nr;
	list_add_tail(&c->node, &b->claims);
	b->claimed += nr;
}

/*
 * The claim that is exactly the run [bitno, bitno + nr), or NULL and a
 * reason: not claimed at all, inside a claim, or of another size.
 */
static struct dmb_claim *dmb_book_find(struct dmb_book *b, unsigned long bitno,
				       unsigned long nr, const char **why)
{
	struct dmb_claim *c;

	list_for_each_entry(c, &b->claims, node) {
		if (c->bitno == bitno) {
			if (c->nr == nr)
				return c;
			*why = "size differs from the claimed run";
			return NULL;
		}
		if (bitno > c->bitno && bitno < c->bitno + c->nr) {
			*why = "not the start of a claimed run";
			return NULL;
		}
	}
	*why = "not claimed (double release?)";
	return NULL;
}

/* Forget a claim. */
static void dmb_book_forget(struct dmb_book *b, struct dmb_claim *c)
{
	list_del(&c->node);
	b->claimed -= c->nr;
}

#endif /* _DMB_ALLOC_BOOK_H */
