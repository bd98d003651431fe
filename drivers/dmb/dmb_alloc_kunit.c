// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "dmb_alloc": the claim bookkeeping of dmb_alloc (the list of
 * runs handed out, dmb_alloc_book.h) and its argument checks, on blocks of
 * the test's own that no memory stands behind.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "dmb_alloc_book.h"

#define TEST_PAGES	1024	/* a 4 MiB block */

/* The reason given contains @text */
static void expect_why(struct kunit *test, const char *why, const char *text)
{
	KUNIT_EXPECT_NOT_NULL_MSG(test, why ? strstr(why, text) : NULL,
				  "reason: %s, expected: %s", why, text);
}

static struct dmb_book *new_book(struct kunit *test, unsigned long count)
{
	struct dmb_book *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	b->count = count;
	INIT_LIST_HEAD(&b->claims);
	return b;
}

static void claim(struct kunit *test, struct dmb_book *b, unsigned long bitno,
		  unsigned long nr)
{
	struct dmb_claim *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	dmb_book_commit(b, c, bitno, nr);
}

static void dmb_alloc_test_args(struct kunit *test)
{
	struct dmb_book *b = new_book(test, TEST_PAGES);
	unsigned long nr = 0, mask = 0;
	const char *why = NULL;

	KUNIT_EXPECT_EQ(test, dmb_book_check_alloc(b, 0, 0, &nr, &mask, &why), -EINVAL);
	expect_why(test, why, "size is 0");
	KUNIT_EXPECT_EQ(test, dmb_book_check_alloc(b, (TEST_PAGES + 1) * PAGE_SIZE,
						   0, &nr, &mask, &why), -EINVAL);
	expect_why(test, why, "size is larger than the block");
	KUNIT_EXPECT_EQ(test, dmb_book_check_alloc(b, PAGE_SIZE, 3 * PAGE_SIZE,
						   &nr, &mask, &why), -EINVAL);
	expect_why(test, why, "alignment is not a power of two");
	KUNIT_EXPECT_EQ(test, dmb_book_check_alloc(b, PAGE_SIZE,
						   2 * TEST_PAGES * PAGE_SIZE,
						   &nr, &mask, &why), -EINVAL);
	expect_why(test, why, "alignment is larger than the block");

	/* sizes round up to pages, small alignments mean a page */
	KUNIT_EXPECT_EQ(test, dmb_book_check_alloc(b, 1, 0, &nr, &mask, &why), 0);
	KUNIT_EXPECT_EQ(test, nr, 1UL);
	KUNIT_EXPECT_EQ(test, mask, 0UL);
	KUNIT_EXPECT_EQ(test, dmb_book_check_alloc(b, PAGE_SIZE + 1, 64, &nr,
						   &mask, &why), 0);
	KUNIT_EXPECT_EQ(test, nr, 2UL);
	KUNIT_EXPECT_EQ(test, mask, 0UL);
	/* a whole block, aligned to a 2 MiB pageblock */
	KUNIT_EXPECT_EQ(test, dmb_book_check_alloc(b, TEST_PAGES * PAGE_SIZE,
						   512 * PAGE_SIZE, &nr, &mask,
						   &why), 0);
	KUNIT_EXPECT_EQ(test, nr, (unsigned long)TEST_PAGES);
	KUNIT_EXPECT_EQ(test, mask, 511UL);
}

static void dmb_alloc_test_release(struct kunit *test)
{
	struct dmb_book *b = new_book(test, TEST_PAGES);
	struct dmb_claim *c;
	const char *why = NULL;

	claim(test, b, 0, 8);
	claim(test, b, 8, 16);
	KUNIT_EXPECT_EQ(test, b->claimed, 24UL);

	/* misuse: nothing changes */
	KUNIT_EXPECT_NULL(test, dmb_book_find(b, 100, 1, &why));
	expect_why(test, why, "not claimed (double release?)");
	KUNIT_EXPECT_NULL(test, dmb_book_find(b, 4, 4, &why));
	expect_why(test, why, "not the start of a claimed run");
	KUNIT_EXPECT_NULL(test, dmb_book_find(b, 8, 8, &why));
	expect_why(test, why, "size differs from the claimed run");
	KUNIT_EXPECT_EQ(test, b->claimed, 24UL);

	/* an exact run is released once */
	c = dmb_book_find(b, 8, 16, &why);
	KUNIT_ASSERT_NOT_NULL(test, c);
	dmb_book_forget(b, c);
	KUNIT_EXPECT_EQ(test, b->claimed, 8UL);
	/* the other run is still there, and goes the same way */
	c = dmb_book_find(b, 0, 8, &why);
	KUNIT_ASSERT_NOT_NULL(test, c);
	dmb_book_forget(b, c);
	KUNIT_EXPECT_EQ(test, b->claimed, 0UL);
	KUNIT_EXPECT_TRUE(test, list_empty(&b->claims));
	KUNIT_EXPECT_NULL(test, dmb_book_find(b, 8, 16, &why));
	expect_why(test, why, "not claimed (double release?)");
}

static struct kunit_case dmb_alloc_test_cases[] = {
	KUNIT_CASE(dmb_alloc_test_args),
	KUNIT_CASE(dmb_alloc_test_release),
	{}
};

static struct kunit_suite dmb_alloc_test_suite = {
	.name = "dmb_alloc",
	.test_cases = dmb_alloc_test_cases,
};

kunit_test_suite(dmb_alloc_test_suite);

MODULE_DESCRIPTION("KUnit tests of dmb_alloc's claim bookkeeping");
MODULE_LICENSE("GPL");
