"""The private names of other packages that srdash still uses, each with why no public way exists yet.

One list for two tests: tests/test_no_private_names.py fails on any other use of a private name of another
package in srdash/, and tests/test_upstream_contract.py checks that each of these still exists where srdash
reads it (a rename upstream fails there, in seconds, instead of reading as "absent" in srdash's code).

Each key is (file under srdash/, the dotted use as the scanner writes it: the imported name it starts from,
then the attributes or getattr/setattr names); each value says why it is allowed.
"""

from __future__ import annotations

GUARDED_PRIVATE_NAMES: dict[tuple[str, str], str] = {
    ("srdash/apps/panels.py", "ipywidgets.Widget._control_comm"):
        "_page_is_loading: whether a page has ever opened ipywidgets' control comm (it then loads every widget's "
        "state). The public view (comm.get_comm_manager().comms, target 'jupyter.widget.control') sees the comm "
        "only while it is open, and the page closes it as soon as the states arrive; the 'has begun to load' "
        "meaning needs this attribute until the widgets' build no longer races the page (issue 33, item 4). "
        "Checked by test_upstream_contract.py::test_a_page_opening_the_widget_control_comm_sets_what_panels_reads, "
        "which drives ipywidgets' own handler.",
}
