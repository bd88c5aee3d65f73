/**
 * The HTML corpus report: one self-contained page (inline CSS and SVG, no
 * script, nothing fetched) with the headline figures, savings and retention
 * by family, and the size distribution before and after. It shows only
 * what {@link CorpusSummary} holds: aggregates, never command or output text.
 *
 * @module
 */
import { FACT_KINDS } from "./facts.ts";
import { type CorpusSummary, type FigureRow, type PassRow, percent } from "./summary.ts";

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** `text` with the five HTML-special characters escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]);
}

const BAR_HEIGHT = 16;
const LABEL_WIDTH = 150;
const PLOT_WIDTH = 420;

/** Horizontal paired bars (share removed, diagnostic retention) for each family. */
function familyChart(families: readonly FigureRow[]): string {
  const shown = families.slice(0, 20);
  const rowHeight = 2 * BAR_HEIGHT + 8;
  const height = shown.length * rowHeight + 30;
  const parts = [
    `<svg role="img" aria-label="savings and retention by family" width="${
      LABEL_WIDTH + PLOT_WIDTH + 70
    }" height="${height}" xmlns="http://www.w3.org/2000/svg">`,
  ];
  shown.forEach((family, index) => {
    const y = 20 + index * rowHeight;
    const bar = (share: number | null, offset: number, css: string) => {
      const width = share === null ? 0 : Math.max(0, share) * PLOT_WIDTH;
      return `<rect class="${css}" x="${LABEL_WIDTH}" y="${y + offset}" width="${
        width.toFixed(1)
      }" height="${BAR_HEIGHT - 2}"/><text x="${LABEL_WIDTH + width + 4}" y="${
        y + offset + BAR_HEIGHT - 5
      }">${percent(share)}</text>`;
    };
    parts.push(
      `<text x="0" y="${y + BAR_HEIGHT}">${escapeHtml(family.name)}</text>`,
      bar(family.removedShare, 0, "saved"),
      bar(family.diagnosticRetention, BAR_HEIGHT, "kept"),
    );
  });
  parts.push(
    `<text x="${LABEL_WIDTH}" y="12" class="legend-saved">■ characters removed</text>`,
    `<text x="${LABEL_WIDTH + 170}" y="12" class="legend-kept">■ diagnostic lines kept</text>`,
    "</svg>",
  );
  return parts.join("");
}

/** Vertical paired bars: records per log2 size bucket, before and after. */
function sizeChart(before: readonly number[], after: readonly number[]): string {
  const buckets = before.length;
  const max = Math.max(1, ...before, ...after);
  const slot = 30;
  const plotHeight = 180;
  const width = buckets * slot + 60;
  const parts = [
    `<svg role="img" aria-label="size distribution before and after" width="${width}" height="${
      plotHeight + 60
    }" xmlns="http://www.w3.org/2000/svg">`,
  ];
  for (let bucket = 0; bucket < buckets; bucket++) {
    const x = 40 + bucket * slot;
    const bar = (count: number, offset: number, css: string) => {
      const h = (count / max) * plotHeight;
      return `<rect class="${css}" x="${x + offset}" y="${
        (20 + plotHeight - h).toFixed(1)
      }" width="${slot / 2 - 2}" height="${h.toFixed(1)}"><title>${count}</title></rect>`;
    };
    const label = bucket === 0 ? "0" : `2^${bucket - 1}`;
    parts.push(
      bar(before[bucket], 0, "before"),
      bar(after[bucket], slot / 2 - 1, "after"),
      `<text x="${x}" y="${plotHeight + 36}" class="tick">${label}</text>`,
    );
  }
  parts.push(
    `<text x="40" y="12" class="legend-before">■ before</text>`,
    `<text x="120" y="12" class="legend-after">■ after (records per size, characters)</text>`,
    "</svg>",
  );
  return parts.join("");
}

function table(headers: readonly string[], body: readonly (readonly string[])[]): string {
  const head = headers.map((header) => `<th>${escapeHtml(header)}</th>`).join("");
  const rows = body.map((cells) =>
    `<tr>${cells.map((cell) => `<td>${escapeHtml(cell)}</td>`).join("")}</tr>`
  ).join("\n");
  return `<table><thead><tr>${head}</tr></thead><tbody>\n${rows}\n</tbody></table>`;
}

function figureTable(rows: readonly FigureRow[]): string {
  return table(
    [
      "name",
      "records",
      "changed",
      "chars before",
      "chars after",
      "removed",
      "failed",
      "diag kept",
      "facts kept",
    ],
    rows.map((row) => [
      row.name,
      String(row.records),
      String(row.changed),
      String(row.charsBefore),
      String(row.charsAfter),
      percent(row.removedShare),
      String(row.failed),
      percent(row.diagnosticRetention),
      percent(row.keyFactRecall),
    ]),
  );
}

function countTable(title: string, counts: Readonly<Record<string, number>>): string {
  return table([title, "records"], Object.entries(counts).map(([id, n]) => [id, String(n)]));
}

/** Unchanged records by reason or program: records, characters, share of all characters. */
function passTable(title: string, rows: readonly PassRow[]): string {
  return table(
    [title, "records", "chars", "share"],
    rows.map((row) => [row.name, String(row.records), String(row.chars), percent(row.share)]),
  );
}

const STYLE = `body{font:14px system-ui,sans-serif;margin:2em;max-width:1100px;color:#222}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:2em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}
td:first-child,th:first-child{text-align:left}
.headline td:first-child{font-weight:600}
svg text{font-size:12px;fill:#333}.tick{font-size:10px}
.saved,.before{fill:#4c78a8}.kept,.after{fill:#f58518}
.legend-saved,.legend-before{fill:#4c78a8}.legend-kept,.legend-after{fill:#f58518}
.grid{display:flex;flex-wrap:wrap;gap:2em}`;

/** The whole report page for `summary`, titled `title`. */
export function renderHtmlReport(summary: CorpusSummary, title: string): string {
  const headline: [string, string][] = [
    ["records analysed", String(summary.records)],
    [
      "eligible / changed / pass-through",
      `${summary.eligible} / ${summary.changed} / ${summary.passThrough}`,
    ],
    [
      "characters removed",
      `${summary.charsRemoved} of ${summary.charsBefore} (${percent(summary.removedShare)})`,
    ],
    ["results that grew", String(summary.grew)],
    ["pass-through byte-exact", `${summary.passThroughExact} of ${summary.passThrough}`],
    ["guarded byte-exact", `${summary.guardedExact} of ${summary.guarded}`],
    ["failed results", String(summary.failed)],
    [
      "diagnostic lines kept",
      `${summary.diagnosticLinesKept} of ${summary.diagnosticLines} (${
        percent(summary.diagnosticRetention)
      })`,
    ],
    [
      "key facts kept",
      `${summary.keyFactsKept} of ${summary.keyFacts} (${percent(summary.keyFactRecall)})`,
    ],
    [
      "time per record",
      `median ${summary.microsMedian.toFixed(0)} µs, p95 ${summary.microsP95.toFixed(0)} µs`,
    ],
  ];
  for (const [cause, count] of Object.entries(summary.skipped)) {
    headline.push([`skipped: ${cause}`, String(count)]);
  }
  const facts = table(
    ["key fact kind", "found", "kept", "recall"],
    FACT_KINDS.map((kind) => {
      const { found, kept, recall } = summary.keyFactsByKind[kind];
      return [kind, String(found), String(kept), percent(recall)];
    }),
  );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>${STYLE}</style></head><body>
<h1>${escapeHtml(title)}</h1>
<table class="headline"><tbody>
${
    headline.map(([k, v]) => `<tr><td>${escapeHtml(k)}</td><td>${escapeHtml(v)}</td></tr>`).join(
      "\n",
    )
  }
</tbody></table>
<h2>Savings and retention by family</h2>
${familyChart(summary.families)}
<h2>Size distribution</h2>
${sizeChart(summary.sizesBefore, summary.sizesAfter)}
<h2>Key facts on failed results</h2>
${facts}
<h2>Families</h2>
${figureTable(summary.families)}
<h2>Rules</h2>
${figureTable(summary.rules)}
<h2>Shell syntax census</h2>
<div class="grid">${countTable("syntax form", summary.syntax)}${
    countTable("parse outcome", summary.parse)
  }${countTable("decision reason", summary.reasons)}</div>
<h2>Pass-through census</h2>
<div class="grid">${passTable("reason", summary.passByReason)}${
    passTable("program", summary.passByProgram)
  }</div>
</body></html>
`;
}
