"""A served page's widgets are built on the kernel's thread and repaired once the page is displayed
(srdash.apps.panels.BackgroundWork.build; issue 33, item 4), driven without a browser: an asyncio loop in
this thread plays the kernel's, and the beacon's messages are sent as its JavaScript sends them."""

from __future__ import annotations

import asyncio
import threading

import comm
import ipywidgets as widgets
import pytest

from srdash.apps.panels import BackgroundWork


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
        return BackgroundWork(display_timeout=30)

    loop = asyncio.new_event_loop()
    work = loop.run_until_complete(construct())
    work.test_loop = loop
    return work


def test_a_served_build_runs_on_the_kernels_thread_and_what_it_changed_is_sent_again_once_displayed():
    work = _served_work()
    loop = work.test_loop
    header, box = widgets.HTML("header"), widgets.VBox([])
    root = widgets.VBox([header, box])
    sent: list = []
    _record_states([root, header, box], sent)
    ran_in, returned = [], []

    cards = []

    def action():
        ran_in.append(threading.current_thread())
        cards.extend(widgets.HTML(f"card {i}") for i in range(3))
        _record_states(cards, sent)
        box.children = cards
        return len(cards)

    worker = threading.Thread(target=lambda: returned.append(work.build(action, root=root)))

    async def serve():   # the kernel's loop runs while the background thread waits for its build
        worker.start()
        while worker.is_alive():
            await asyncio.sleep(0.01)

    loop.run_until_complete(serve())
    assert ran_in == [threading.main_thread()] and returned == [3]
    assert sent == []   # nothing is sent again before the page is displayed
    work.page_ready._on_message(work.page_ready, {"event": "displayed"}, [])
    # every widget on the page, once: what the page missed while it was creating it is set again
    assert sorted(map(id, sent)) == sorted(map(id, [root, header, box, *cards]))
    loop.close()


def test_a_widget_whose_comm_the_loading_page_closed_is_opened_again_once_displayed():
    # A page that connected before its widget manager could take new widgets closes their comms (jupyterlab's
    # kernel connection answers a comm_open for a target it does not know yet with a comm_close).
    work = _served_work()
    box = widgets.VBox([])
    root = widgets.VBox([box])
    card = work.build(lambda: widgets.HTML("card"), root=root)
    box.children = [card]
    closed_id = card.model_id
    manager = comm.get_comm_manager()
    manager.comm_close(None, None, {"content": {"comm_id": closed_id, "data": {}}})   # what the page sends
    assert closed_id not in manager.comms
    sent: list = []
    _record_states([root, box], sent)
    work.page_ready._on_message(work.page_ready, {"event": "displayed"}, [])
    # the card is open again (the page gets it anew), and the kernel hears it again; its box names it
    assert manager.comms[card.model_id] is card.comm
    assert sorted(map(id, sent)) == sorted(map(id, [root, box]))
    assert box.get_state("children")["children"] == [f"IPY_MODEL_{card.model_id}"]
    work.test_loop.close()


def test_a_build_after_the_page_is_displayed_sends_nothing_again():
    work = _served_work()
    root = widgets.VBox([widgets.HTML("a")])
    sent: list = []
    _record_states([root, *root.children], sent)
    work.page_ready._on_message(work.page_ready, {"event": "displayed"}, [])
    assert work.build(lambda: "built", root=root) == "built"   # on the kernel's thread: at once
    assert sent == []
    work.test_loop.close()


def test_waiting_on_the_kernels_thread_runs_the_build_the_work_waits_for():
    # a cell that waits for the work would otherwise wait for itself: the work waits for this thread
    work = _served_work()
    root = widgets.VBox([])
    ran_in = []

    def target():
        work.build(lambda: ran_in.append(threading.current_thread()), root=root)

    work.start(target, name="test-build")
    assert work.wait(60) and ran_in == [threading.main_thread()]
    work.test_loop.close()


def test_an_error_of_a_build_is_raised_in_the_thread_that_asked_for_it():
    work = _served_work()
    errors = []

    def target():
        try:
            work.build(lambda: 1 / 0, root=widgets.VBox([]))
        except ZeroDivisionError as error:
            errors.append(error)

    work.start(target, name="test-build-error")
    assert work.wait(60)
    assert len(errors) == 1 and str(errors[0]) == "division by zero"
    work.test_loop.close()


@pytest.mark.parametrize("display_timeout", [0, 30])
def test_a_notebooks_build_or_one_without_a_running_loop_runs_where_it_is_asked(display_timeout):
    work = BackgroundWork(display_timeout=display_timeout)   # no running loop here
    ran_in = []
    work.start(lambda: work.build(lambda: ran_in.append(threading.current_thread()), root=widgets.VBox([])),
               name="test-build-here")
    assert work.wait(60)
    assert len(ran_in) == 1 and ran_in[0] is not threading.main_thread()
