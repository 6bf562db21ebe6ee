// Shared by the simulation and sweep reports: one colour per policy in every figure of every report, charts drawn as
// SVG, and a button on each chart that saves it as an SVG file (for a paper).
const POLICY_COLOURS = {
  fifo: '#7f7f7f', sjf: '#8c564b', srtf: '#bcbd22', tiresias: '#17becf', 'fifo-packed': '#1f77b4', 'gavel-packed': '#6baed6',
  lucid: '#2ca02c', gandiva: '#9467bd', tandem: '#d62728', 'tandem:makespan': '#ff7f0e', 'tandem:jct': '#e377c2', 'tandem:balanced': '#d62728'
};
const SPARE_COLOURS = ['#393b79', '#637939', '#8c6d31', '#843c39', '#7b4173', '#3182bd', '#31a354', '#756bb1', '#636363', '#e6550d'];
const spareFor = {};
function policyColour(name) {
  if (POLICY_COLOURS[name]) return POLICY_COLOURS[name];
  if (!(name in spareFor)) spareFor[name] = SPARE_COLOURS[Object.keys(spareFor).length % SPARE_COLOURS.length];
  return spareFor[name];
}
// a file name for the saved figure: the chart's title, lower-case, words joined by dashes
function fileName(title) { return (title || 'figure').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 80); }
// the button that saves a chart as an SVG file named after its title
function saveAsSvg(title) {
  return { right: 10, feature: { saveAsImage: { type: 'svg', title: 'save as SVG', name: fileName(title) } } };
}
function svgChart(el, option) {
  const c = echarts.init(el, null, { renderer: 'svg' });
  option.toolbox = saveAsSvg(option.title && option.title.text);
  c.setOption(option);
  window.addEventListener('resize', () => c.resize());
  return c;
}
// a makespan-vs-JCT plane's points: each policy's [makespan h, mean JCT h] with its label on a side of its own among
// points close together (within 4% of either axis' span), so that no label is drawn over another
function planePoints(points) {
  const span = k => Math.max(...points.map(v => v[k])) - Math.min(...points.map(v => v[k])) || 1;
  const near = [0.04 * span(0), 0.04 * span(1)], sides = ['right', 'left', 'top', 'bottom'];
  return points.map((v, i) => ({ value: v, side: sides[points.slice(0, i).filter(w =>
    Math.abs(w[0] - v[0]) < near[0] && Math.abs(w[1] - v[1]) < near[1]).length % sides.length] }));
}
// a value axis around the data with a margin, so that no point sits on an axis line (the best policy's would)
function paddedAxis(name) {
  const pad = v => 0.08 * (v.max - v.min || v.max);
  return { type: 'value', name, min: v => Math.max(0, Math.floor(v.min - pad(v))), max: v => Math.ceil(v.max + pad(v)) };
}
