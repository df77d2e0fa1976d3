// The status grid's details (_ext/status_grid.py): a <details> per cell opens by click, tap, Enter or Space on its
// own; this opens it on hover and on keyboard focus too, keeps one open at a time, and closes it on Escape.
// A click or tap pins it open until the next one or Escape.
document.addEventListener("DOMContentLoaded", () => {
  const cells = Array.from(document.querySelectorAll(".run-grid details.run-cell"));
  const closeOthers = (keep) => {
    for (const other of cells) {
      if (other !== keep) { other.open = false; delete other.dataset.pinned; }
    }
  };
  const show = (cell) => { closeOthers(cell); cell.open = true; };
  const hide = (cell) => { if (!cell.dataset.pinned) cell.open = false; };
  for (const cell of cells) {
    cell.addEventListener("pointerenter", (e) => { if (e.pointerType === "mouse") show(cell); });
    cell.addEventListener("pointerleave", (e) => { if (e.pointerType === "mouse") hide(cell); });
    cell.addEventListener("focusin", () => show(cell));
    cell.addEventListener("focusout", (e) => { if (!cell.contains(e.relatedTarget)) hide(cell); });
    cell.querySelector("summary").addEventListener("click", (e) => {
      e.preventDefault();
      if (cell.dataset.pinned) { delete cell.dataset.pinned; cell.open = false; }
      else { show(cell); cell.dataset.pinned = "true"; }
    });
  }
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape") { closeOthers(null); }
  });
  document.addEventListener("click", (e) => {
    if (!e.target.closest(".run-grid details.run-cell")) { closeOthers(null); }
  });
});
