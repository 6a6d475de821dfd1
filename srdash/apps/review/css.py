"""The trust review's stylesheet (cards, the overview, a phone's layout), added once to its page."""

__all__ = ["REVIEW_CSS"]

REVIEW_CSS = """
<style>
.srdash-card { border: 1px solid #ccc; border-radius: 6px; padding: 8px 14px; margin: 8px 0; background: #fff; }
.srdash-card-problem { border-left: 5px solid #d9822b; }
.srdash-card-done { border-left: 5px solid #2e8b57; }
.srdash-raw pre { white-space: pre-wrap; word-break: break-all; background: #f6f6f6; padding: 6px;
                  font-size: 12px; margin: 0; }
.srdash-explain { color: #555; font-size: 12px; }
.srdash-metrics td { padding: 2px 10px 2px 0; vertical-align: top; }
.srdash-metrics td:first-child { width: 150px; white-space: nowrap; }
.srdash-metrics td:nth-child(2) { width: 240px; }
.srdash-formula { max-width: 100%; overflow-x: auto; overflow-y: hidden; }
.srdash-formula-text { white-space: pre-wrap; overflow-wrap: anywhere; word-break: break-word;
                       font-family: monospace; font-size: 13px; background: #fafafa; padding: 6px;
                       border-radius: 4px; max-width: 100%; box-sizing: border-box; }
.srdash-compare-row { border-bottom: 1px solid #eee; padding: 4px 0; }
/* the formula wraps (a phone showed its first 12 characters); the card below shows it whole */
.srdash-compare-row .srdash-compare-formula { font-family: monospace; font-size: 12px; white-space: pre-wrap;
                                              overflow-wrap: anywhere; max-width: 100%; }
.srdash-compare-row td { padding: 0 8px 0 0; vertical-align: middle; }
.srdash-rank-row .widget-toggle-button { width: 38px; }
.srdash-rank-row button.mod-active { background: #1f77b4; color: #fff; font-weight: bold; }
.srdash-rank-row button:focus { outline: 2px solid #1f77b4; outline-offset: 1px; }
.srdash-card { overflow-x: auto; }
/* A typeset formula is set twice, in lines for a desk and in shorter lines for a phone; one is shown. The
   other is taken out of the flow: hidden in place, its width centred the shown one past a phone's card.
   A formula of the same lines on both is set once (srdash-math-both): shown on both, set left on a phone. */
.srdash-formula { position: relative; }
.srdash-math-narrow { position: absolute; left: 0; top: 0; width: 1px; height: 1px; overflow: hidden;
                      visibility: hidden; }
@media (max-width: 700px) {
  .srdash-math-wide { position: absolute; left: 0; top: 0; width: 1px; height: 1px; overflow: hidden;
                      visibility: hidden; }
  .srdash-math-narrow { position: static; width: auto; height: auto; overflow: visible; visibility: visible; }
  .srdash-math-narrow mjx-container[display="true"],
  .srdash-math-both mjx-container[display="true"] { text-align: left; }
}
/* what still does not fit scrolls inside its box, with a shadow at the edge that has more */
.srdash-formula, .srdash-organiser .srdash-scroll { overflow-x: auto; max-width: 100%;
  background: linear-gradient(to right, #fff 30%, rgba(255,255,255,0)) left / 24px 100% no-repeat local,
              linear-gradient(to left, #fff 30%, rgba(255,255,255,0)) right / 24px 100% no-repeat local,
              radial-gradient(farthest-side at 0 50%, rgba(0,0,0,.22), rgba(0,0,0,0)) left / 10px 100% no-repeat scroll,
              radial-gradient(farthest-side at 100% 50%, rgba(0,0,0,.22), rgba(0,0,0,0)) right / 10px 100% no-repeat scroll; }
/* ipywidgets gives each line of an HTML widget a control's height (28 px): text of several lines reads loose */
.srdash-review .widget-html > .widget-html-content { min-width: 0; max-width: 100%; line-height: 1.45; }
/* a phone: label and plot side by side, the formula and the numbers under them at the row's full width */
@media (max-width: 700px) {
  .srdash-compare-row table, .srdash-compare-row tbody, .srdash-compare-row tr { display: block; }
  .srdash-compare-row td { display: inline-block; vertical-align: middle; }
  .srdash-compare-row td:nth-child(3) { display: block; width: 100% !important; box-sizing: border-box;
                                        padding-top: 4px; }
}
/* buttons keep their whole label: their row wraps instead of shortening them to "Show the typese…" */
.srdash-toggles { flex-wrap: wrap; gap: 4px; }
.srdash-toggles .jupyter-button, .srdash-review .widget-hbox > .jupyter-button { flex-shrink: 0; max-width: 100%; }
/* a narrow screen (a phone): the card's table of numbers stacks instead of running off the card */
@media (max-width: 700px) {
  .srdash-metrics, .srdash-metrics tbody, .srdash-metrics tr { display: block; width: 100%; }
  .srdash-metrics td { display: block; width: auto !important; white-space: normal !important; }
  .srdash-metrics tr { margin-bottom: 6px; }
}
/* a detail card not yet scrolled to (served): a box of about the card's height, so that the page does not jump */
.srdash-card-later .srdash-near-screen { box-sizing: border-box; min-height: 660px; margin: 8px 0; padding: 8px 14px;
  border: 1px dashed #ccc; border-radius: 6px; color: #777; font-size: 14px; font-weight: bold; background: #fafafa; }
@media (max-width: 700px) { .srdash-card-later .srdash-near-screen { min-height: 920px; } }
/* plotly's renderer sizes the plot to its container, which an output area leaves at height 0 */
.srdash-figure .jp-RenderedPlotly { display: block; height: 300px; }
</style>
"""
