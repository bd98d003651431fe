/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM dmb_alloc

#if !defined(_DMB_ALLOC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _DMB_ALLOC_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(dmb_alloc_start,
	    TP_PROTO(const char *name, unsigned long nr, unsigned long align),
	    TP_ARGS(name, nr, align),
	    TP_STRUCT__entry(__string(name, name)
			     __field(unsigned long, nr)
			     __field(unsigned long, align)),
	    TP_fast_assign(__assign_str(name);
			   __entry->nr = nr;
			   __entry->align = align;),
	    TP_printk("name=%s nr=%lu align=%lu",
		      __get_str(name), __entry->nr, __entry->align)
);

/* A run of a block: where it starts and how many pages */
DECLARE_EVENT_CLASS(dmb_alloc_run,
		    TP_PROTO(const char *name, unsigned long pfn, unsigned long nr),
		    TP_ARGS(name, pfn, nr),
		    TP_STRUCT__entry(__string(name, name)
				     __field(unsigned long, pfn)
				     __field(unsigned long, nr)),
		    TP_fast_assign(__assign_str(name);
				   __entry->pfn = pfn;
				   __entry->nr = nr;),
		    TP_printk("name=%s pfn=0x%lx nr=%lu",
			      __get_str(name), __entry->pfn, __entry->nr)
);

TRACE_EVENT(dmb_alloc_finish,
	    TP_PROTO(const char *name, unsigned long pfn, unsigned long nr,
		     int err, u64 ns),
	    TP_ARGS(name, pfn, nr, err, ns),
	    TP_STRUCT__entry(__string(name, name)
			     __field(unsigned long, pfn)
			     __field(unsigned long, nr)
			     __field(int, err)
			     __field(u64, ns)),
	    TP_fast_assign(__assign_str(name);
			   __entry->pfn = pfn;
			   __entry->nr = nr;
			   __entry->err = err;
			   __entry->ns = ns;),
	    TP_printk("name=%s pfn=0x%lx nr=%lu err=%d duration_ns=%llu",
		      __get_str(name), __entry->pfn, __entry->nr, __entry->err,
		      __entry->ns)
);

DEFINE_EVENT(dmb_alloc_run, dmb_release,
	     TP_PROTO(const char *name, unsigned long pfn, unsigned long nr),
	     TP_ARGS(name, pfn, nr)
);

#endif /* _DMB_ALLOC_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE dmb_alloc_trace
#include <trace/define_trace.h>
