import { comparePage } from "./compare-page.js";
import { dashboardPage } from "./dashboard-page.js";
import { evalPage, evalsPage } from "./evals-page.js";
import { runPage } from "./run-page.js";
import { runsPage } from "./runs-page.js";

/**
 * The inspector's web app: pages behind hash routes — `#/` (runs), `#/runs/<id>` (a run),
 * `#/compare/<a>/<b>`, `#/dashboard`, `#/evals` (eval runs), `#/evals/<id>[/<baseline id>]` (one eval) — drawn with plain DOM (see dom.ts). Each page returns its cleanup
 * (timers, event sources), run when the route changes.
 */
let cleanup: (() => void) | undefined;

/** A route segment decoded; as typed when its percent-encoding is malformed (never a crash). */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function route(moveFocus: boolean): void {
  const main = document.getElementById("main");
  if (main === null) return;
  cleanup?.();
  const parts = location.hash.replace(/^#\/?/, "").split("/").map(safeDecode);
  if (parts[0] === "runs" && parts[1] !== undefined && parts[1] !== "") {
    cleanup = runPage(main, parts[1]);
    document.title = `Run ${parts[1]} · tinyagents inspector`;
  } else if (parts[0] === "evals" && parts[1] !== undefined && parts[1] !== "") {
    cleanup = evalPage(main, parts[1], parts[2] === "" ? undefined : parts[2]);
    document.title = `Eval ${parts[1]} · tinyagents inspector`;
  } else if (parts[0] === "dashboard") {
    cleanup = dashboardPage(main);
    document.title = "Dashboard · tinyagents inspector";
  } else if (parts[0] === "evals") {
    cleanup = evalsPage(main);
    document.title = "Evals · tinyagents inspector";
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
