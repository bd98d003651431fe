/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Claim bookkeeping of one Designated Movable Block area: which pages are
 * claimed (a bitmap, one bit per page, as CMA keeps it) and which runs were
 * handed out (a list, so that a release must name a run exactly).  Nothing
 * here touches memory or locks: dmb_alloc.c holds the area's spinlock
 * around every call, and the KUnit suite drives it on bitmaps of its own.
 */
#ifndef _DMB_ALLOC_BOOK_H
#define _DMB_ALLOC_BOOK_H

#include <linux/bitmap.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/mm.h>

/**
 * struct dmb_claim - one run handed out by dmb_alloc()
 * @node: in &dmb_book.claims
 * @bitno: first page of the run, counted from the start of the block
 * @nr: pages in the run
 * @test: claimed through the debugfs "alloc" test hook
 */
struct dmb_claim {
	struct list_head node;
	unsigned long bitno;
	unsigned long nr;
	bool test;
};

/**
 * struct dmb_book - claimed pages of a block
 * @bitmap: one bit per page, set while claimed or being claimed
 * @count: pages in the block
 * @claims: the runs handed out, &struct dmb_claim
 * @claimed: pages in @claims
 */
struct dmb_book {
	unsigned long *bitmap;
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

/*
 * Mark the first free run of @nr pages at or after @start whose page
 * frame, @offset being the block's first page frame modulo the alignment,
 * is aligned to @mask + 1.  Return its first page, or b->count if none.
 */
static unsigned long dmb_book_reserve(struct dmb_book *b, unsigned long start,
				      unsigned long nr, unsigned long mask,
				      unsigned long offset)
{
	unsigned long bitno;

	if (start >= b->count)
		return b->count;
	bitno = bitmap_find_next_zero_area_off(b->bitmap, b->count, start, nr,
					       mask, offset);
	if (bitno >= b->count)
		return b->count;
	bitmap_set(b->bitmap, bitno, nr);
	return bitno;
}

/* Undo dmb_book_reserve() of a run that could not be claimed. */
static void dmb_book_unreserve(struct dmb_book *b, unsigned long bitno,
			       unsigned long nr)
{
	bitmap_clear(b->bitmap, bitno, nr);
}

/* Record a reserved run as handed out. */
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

/* Forget a claim and free its pages in the bitmap. */
static void dmb_book_forget(struct dmb_book *b, struct dmb_claim *c)
{
	list_del(&c->node);
	bitmap_clear(b->bitmap, c->bitno, c->nr);
	b->claimed -= c->nr;
}

/* The longest run of unclaimed pages. */
static unsigned long dmb_book_maxchunk(const struct dmb_book *b)
{
	unsigned long start = 0, end, best = 0;

	for (;;) {
		start = find_next_zero_bit(b->bitmap, b->count, start);
		if (start >= b->count)
			break;
		end = find_next_bit(b->bitmap, b->count, start);
		best = max(best, end - start);
		start = end;
	}
	return best;
}

#endif /* _DMB_ALLOC_BOOK_H */
