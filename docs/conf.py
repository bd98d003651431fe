# SPDX-License-Identifier: GPL-2.0
# Sphinx configuration of the project's documents (make docs).  The
# kernel-doc comments of the drivers are pulled in with the kernel's own
# Documentation/sphinx/kerneldoc.py and scripts/kernel-doc, from the
# unpacked kernel tree (DMB_KERNEL, set by scripts/docs.sh).
import os
import sys

import sphinx

kernel = os.environ.get('DMB_KERNEL', os.path.join('..', 'build', 'linux'))
sys.path.insert(0, os.path.join(kernel, 'Documentation', 'sphinx'))

project = 'Designated Movable Blocks'
copyright = 'the project authors; GPL-2.0'
extensions = ['kerneldoc']
# The kernel's cdomain.py replaces the C domain of Sphinx before 3.0 only
# (it imports what later versions removed); the kernel's own conf.py adds
# it only then, and so do we.
if sphinx.version_info[0] < 3:
    extensions.append('cdomain')
primary_domain = 'c'
highlight_language = 'none'
kerneldoc_bin = os.path.join(kernel, 'scripts', 'kernel-doc')
kerneldoc_srctree = os.path.abspath('..')
kerneldoc_verbosity = 0
exclude_patterns = ['_build', 'ABI']
html_theme = 'alabaster'
html_show_sourcelink = False
