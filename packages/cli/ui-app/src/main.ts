import { comparePage } from "./compare-page.js";
import { runPage } from "./run-page.js";
import { runsPage } from "./runs-page.js";

/**
 * The inspector's web app: three pages behind hash routes — `#/` (runs), `#/runs/<id>` (a run),
 * `#/compare/<a>/<b>` — drawn with plain DOM (see dom.ts). Each page returns its cleanup
 * (timers, event sources), run when the route changes.
 */
let cleanup: (() => void) | undefined;

function route(moveFocus: boolean): void {
  const main = document.getElementById("main");
  if (main === null) return;
  cleanup?.();
  const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  if (parts[0] === "runs" && parts[1] !== undefined && parts[1] !== "") {
    cleanup = runPage(main, parts[1]);
    document.title = `Run ${parts[1]} · tinyagents inspector`;
  } else if (parts[0] === "compare" && parts[1] !== undefined && parts[2] !== undefined) {
    cleanup = comparePage(main, parts[1], parts[2]);
    document.title = "Compare runs · tinyagents inspector";
  } else {
    cleanup = runsPage(main);
    document.title = "Runs · tinyagents inspector";
  }
  // Move focus to the new page's heading (keyboard and screen-reader users land on it).
  if (moveFocus) main.querySelector<HTMLElement>("h1")?.focus();
}

window.addEventListener("hashchange", () => route(true));
route(false);
