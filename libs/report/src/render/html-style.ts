// The HTML report's stylesheet, inlined into the page so it is one self-contained file: no fonts,
// scripts or images are fetched (the page's Content-Security-Policy forbids it too). Light, print-
// friendly, with the verdict's colour carried by the header.
export const HTML_STYLE = `
:root { --fg:#1d2330; --muted:#5c6677; --line:#dde2ea; --bg:#f6f7f9; --card:#fff;
  --ok:#1a7f37; --ok-bg:#e6f4ea; --bad:#c62828; --bad-bg:#fdecea; --warn:#9a6700; --warn-bg:#fff4d6; --info:#33557a; --info-bg:#eaf1f8; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif; color:var(--fg); background:var(--bg); }
main { max-width:1200px; margin:0 auto; padding:24px; }
h1 { font-size:26px; margin:0 0 4px; } h2 { font-size:18px; margin:28px 0 10px; }
.muted { color:var(--muted); } code, .mono { font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace; font-size:12.5px; }
header.run { background:var(--card); border:1px solid var(--line); border-left:8px solid var(--info); border-radius:8px; padding:18px 22px; display:grid; grid-template-columns:1fr auto; gap:12px 28px; }
header.run.verdict-scored { border-left-color:var(--ok); } header.run.verdict-aborted { border-left-color:var(--bad); } header.run.verdict-invalid { border-left-color:var(--warn); }
.badge { display:inline-block; padding:3px 10px; border-radius:999px; font-weight:700; text-transform:uppercase; letter-spacing:.04em; font-size:12px; }
.badge.scored { background:var(--ok-bg); color:var(--ok); } .badge.aborted { background:var(--bad-bg); color:var(--bad); } .badge.invalid { background:var(--warn-bg); color:var(--warn); }
.score { text-align:right; } .score .value { font-size:44px; font-weight:800; line-height:1; } .score .of { font-size:16px; color:var(--muted); }
.reason { margin:8px 0 0; }
dl.meta { grid-column:1 / -1; display:grid; grid-template-columns:repeat(auto-fill,minmax(260px,1fr)); gap:4px 20px; margin:8px 0 0; }
dl.meta div { display:flex; gap:8px; min-width:0; } dl.meta dt { color:var(--muted); flex:none; } dl.meta dd { margin:0; overflow-wrap:anywhere; }
.bar { display:block; position:relative; height:10px; background:#e9ecf1; border-radius:5px; min-width:140px; }
.bar .band { display:block; position:absolute; top:0; bottom:0; background:#9bb6d6; border-radius:5px; }
.bar .point { display:block; position:absolute; top:-3px; width:4px; height:16px; margin-left:-2px; background:var(--fg); border-radius:2px; }
.score .bar { width:260px; margin:10px 0 4px auto; }
td .bar { margin:5px 0 3px; }
table { width:100%; border-collapse:collapse; background:var(--card); border:1px solid var(--line); border-radius:8px; overflow:hidden; }
th, td { padding:7px 10px; border-bottom:1px solid var(--line); text-align:left; vertical-align:top; }
th { background:#eef1f5; font-weight:600; font-size:12.5px; color:var(--muted); }
tr:last-child td { border-bottom:none; } td.num { text-align:right; font-variant-numeric:tabular-nums; white-space:nowrap; }
.chip { display:inline-block; margin:1px 4px 1px 0; padding:0 6px; border-radius:4px; font-size:12px; white-space:nowrap; }
.chip.pass { background:var(--ok-bg); color:var(--ok); } .chip.fail { background:var(--bad-bg); color:var(--bad); } .chip.na { background:#eceff3; color:var(--muted); }
.th-pass { color:var(--ok); font-weight:600; } .th-fail { color:var(--bad); font-weight:600; } .th-inconclusive { color:var(--warn); font-weight:600; }
.warnings { background:var(--warn-bg); border:1px solid #f0d48a; border-radius:8px; padding:10px 16px 10px 34px; margin:0; }
.warnings li { margin:4px 0; overflow-wrap:anywhere; }
details.rep { background:var(--card); border:1px solid var(--line); border-radius:8px; margin:0 0 12px; }
details.rep > summary { cursor:pointer; padding:10px 14px; font-weight:600; list-style-position:inside; }
details.rep > summary .muted { font-weight:400; }
.missing { margin:0 14px 12px; padding:8px 12px; background:var(--warn-bg); border-radius:6px; }
ol.timeline { list-style:none; margin:0; padding:0 14px 12px; }
ol.timeline li { display:grid; grid-template-columns:88px 86px 1fr auto; gap:10px; padding:5px 8px; border-left:4px solid var(--line); margin:2px 0; border-radius:3px; }
ol.timeline li.tone-bad { border-left-color:var(--bad); background:var(--bad-bg); }
ol.timeline li.tone-warn { border-left-color:#d4a72c; background:#fffbeb; }
ol.timeline li.tone-ok { border-left-color:#8fd19e; }
ol.timeline li.tone-info { border-left-color:#b8c7da; }
ol.timeline .when { color:var(--muted); } ol.timeline .src { color:var(--muted); font-size:12px; }
ol.timeline .what { min-width:0; overflow-wrap:anywhere; } ol.timeline .detail { color:var(--muted); font-size:12.5px; }
ol.timeline .cost { text-align:right; white-space:nowrap; font-variant-numeric:tabular-nums; }
footer { margin:32px 0 8px; color:var(--muted); font-size:12px; }
@media print { details.rep { break-inside:avoid; } body { background:#fff; } }
`;
