"""A served page's widgets are built on the kernel's thread once the page is displayed
(srdash.apps.panels.BackgroundWork.build; issue 33, item 4), driven without a browser: an asyncio loop in
this thread plays the kernel's, and the beacon's messages are sent as its JavaScript sends them."""

from __future__ import annotations

import asyncio
import threading

import comm
import ipywidgets as widgets
import pytest

from srdash.apps.panels import BackgroundWork, widget_tree


def _record_states(widgets_recorded, sent: list) -> None:
    """Make each widget append itself to ``sent`` when it sends its whole state (a change of one trait, which
    sends that trait, is sent as before)."""
    for widget in widgets_recorded:
        def send_state(key=None, widget=widget, send=widget.send_state):
            if key is None:
                sent.append(widget)
            else:
                send(key)
        widget.send_state = send_state


def _served_work() -> BackgroundWork:
    async def construct() -> BackgroundWork:   # as a cell does, inside the kernel's running loop
        return BackgroundWork(served=True)

    loop = asyncio.new_event_loop()
    work = loop.run_until_complete(construct())
    work.test_loop = loop
    return work


def _serve_while(loop, worker: threading.Thread) -> None:
    async def serve():   # the kernel's loop runs while the background thread hands over its build
        worker.start()
        while worker.is_alive():
            await asyncio.sleep(0.01)

    loop.run_until_complete(serve())


def test_a_served_build_runs_on_the_kernels_thread_once_the_page_is_displayed():
    work = _served_work()
    loop = work.test_loop
    header, box = widgets.HTML("header"), widgets.VBox([])
    root = widgets.VBox([header, box])
    sent: list = []
    _record_states([root, header, box], sent)
    ran_in, cards = [], []

    def action():
        ran_in.append(threading.current_thread())
        cards.extend(widgets.HTML(f"card {i}") for i in range(3))
        box.children = cards

    _serve_while(loop, threading.Thread(target=lambda: work.build(action, root=root)))
    assert ran_in == [] and box.children == ()   # no widget made while no page has displayed it
    work.page_ready._on_message(work.page_ready, {"event": "displayed"}, [])   # heard on the kernel's thread
    assert ran_in == [threading.main_thread()] and box.children == tuple(cards)
    # first, what the page showed, once: what it missed while it was creating it from its snapshot; the
    # cards came after the page had displayed everything: not again
    assert sorted(map(id, sent)) == sorted(map(id, [root, header, box]))
    loop.close()


def test_a_shown_widget_whose_comm_the_loading_page_closed_is_opened_again_once_displayed():
    # A page that connected before its widget manager could take new widgets closes their comms (jupyterlab's
    # kernel connection answers a comm_open for a target it does not know yet with a comm_close).
    work = _served_work()
    card = widgets.HTML("card")
    box = widgets.VBox([card])
    root = widgets.VBox([box])
    work.build(lambda: None, root=root)
    manager = comm.get_comm_manager()
    refused = [card.model_id, card.layout.model_id]
    for comm_id in refused:
        manager.comm_close(None, None, {"content": {"comm_id": comm_id, "data": {}}})   # what the page sends
    assert not set(refused) & set(manager.comms)
    opened: list = []
    for widget in (card, card.layout):
        widget.open = (lambda widget=widget, open_=widget.open: (opened.append(widget), open_())[1])
    sent: list = []
    _record_states([root, box, card, card.layout], sent)
    work.page_ready._on_message(work.page_ready, {"event": "displayed"}, [])
    # opened again (new comms the kernel hears, the same ids), the layout before the card that names it
    assert opened == [card.layout, card]
    assert all(manager.comms[widget.model_id] is widget.comm for widget in opened)
    assert root in sent and box in sent and card not in sent   # the others send their state again
    assert box.get_state("children")["children"] == [f"IPY_MODEL_{card.model_id}"]
    work.test_loop.close()


def test_a_build_after_the_page_is_displayed_runs_at_once_and_sends_nothing_again():
    work = _served_work()
    root = widgets.VBox([widgets.HTML("a")])
    sent: list = []
    _record_states([root, *root.children], sent)
    work.page_ready._on_message(work.page_ready, {"event": "displayed"}, [])
    new = widgets.HTML("b")
    work.build(lambda: setattr(root, "children", [*root.children, new]), root=root)   # on the kernel's thread
    assert root.children[-1] is new and sent == []
    work.test_loop.close()


def test_the_widget_tree_names_layouts_and_styles_each_after_what_it_names():
    slider = widgets.IntSlider()
    shared = widgets.HTML("twice")
    box = widgets.VBox([slider, shared, widgets.HBox([shared])])
    tree = widget_tree([box])
    assert len(tree) == len({id(w) for w in tree})   # each once
    for widget in (slider.layout, slider.style, shared, box.children[2]):
        assert widget in tree
    assert tree.index(slider.style) < tree.index(slider) < tree.index(box)
    assert tree.index(shared) < tree.index(box.children[2]) < tree.index(box) and tree[-1] is box


def test_waiting_on_the_kernels_thread_takes_the_build_the_work_hands_over():
    # a cell that waits for the work would otherwise wait for itself: the work waits for this thread
    work = _served_work()
    root = widgets.VBox([])
    ran_in = []
    work.page_ready._on_message(work.page_ready, {"event": "displayed"}, [])
    work.start(lambda: work.build(lambda: ran_in.append(threading.current_thread()), root=root), name="test-build")
    assert work.wait(60) and ran_in == [threading.main_thread()]
    work.test_loop.close()


def test_an_error_of_a_build_that_runs_at_once_is_raised_in_the_thread_that_asked_for_it():
    work = BackgroundWork(served=False)
    errors = []

    def target():
        try:
            work.build(lambda: 1 / 0, root=widgets.VBox([]))
        except ZeroDivisionError as error:
            errors.append(error)

    work.start(target, name="test-build-error")
    assert work.wait(60)
    assert len(errors) == 1 and str(errors[0]) == "division by zero"


@pytest.mark.parametrize("served", [False, True])
def test_a_notebooks_build_or_one_without_a_running_loop_runs_where_it_is_asked(served):
    work = BackgroundWork(served=served)   # no running loop here
    ran_in = []
    work.start(lambda: work.build(lambda: ran_in.append(threading.current_thread()), root=widgets.VBox([])),
               name="test-build-here")
    assert work.wait(60)
    if served:   # once a page is displayed (what the browser's beacon says), in the thread that hears it
        assert ran_in == []
        work.page_ready._on_message(work.page_ready, {"event": "displayed"}, [])
        assert ran_in == [threading.main_thread()]
    else:
        assert len(ran_in) == 1 and ran_in[0] is not threading.main_thread()
