#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make docs: build docs/ to HTML (build/docs/index.html) with Debian's
# Sphinx, warnings as errors, kernel-doc from the drivers through the
# kernel's own Documentation/sphinx/kerneldoc.py.
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
command -v sphinx-build > /dev/null || {
	echo "docs: error: sphinx-build missing (make deps installs python3-sphinx)" >&2
	exit 1
}
[ -f build/linux/Documentation/sphinx/kerneldoc.py ] || {
	echo "docs: error: no kernel tree in build/linux (make prepare)" >&2
	exit 1
}
rm -rf build/docs
KDOC_WERROR=1 DMB_KERNEL=$TOP/build/linux sphinx-build -q -W --keep-going -b html -d build/docs/.doctrees docs build/docs
echo "docs: build/docs/index.html"
