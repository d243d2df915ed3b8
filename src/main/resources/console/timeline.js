// The Timeline page: messages due over time, live (server-sent events), all topics stacked or one topic.
import { get, stream } from './api.js';
import { TimelineChart } from './chart.js';
import { el } from './ui.js';

const SPANS = [['minute', 'Next minute'], ['hour', 'Next hour'], ['day', 'Next day'], ['week', 'Next week']];

/**
 * A live chart in {@code container} for {@code topic} (null: all topics), with span buttons and drag to zoom.
 * Returns a function that closes its stream.
 */
export function liveTimeline(container, topic) {
  let span = 'minute';
  let zoom = null;
  let close = null;
  const status = el('span', { className: 'muted', id: 'timeline-status' });
  const buttons = SPANS.map(([name, label]) => el('button', { type: 'button', id: 'span-' + name,
    onclick: () => { span = name; zoom = null; open(); } }, label));
  const reset = el('button', { type: 'button', id: 'zoom-reset', hidden: true,
    onclick: () => { zoom = null; open(); } }, 'Reset zoom');
  const chartBox = el('div');
  container.append(el('div', { className: 'controls' }, buttons, reset, status), chartBox);
  const chart = new TimelineChart(chartBox, (from, to) => { zoom = { from, to }; open(); });

  function open() {
    if (close) {
      close();
    }
    buttons.forEach((b) => b.classList.toggle('selected', !zoom && b.id === 'span-' + span));
    reset.hidden = !zoom;
    const params = new URLSearchParams();
    if (topic) {
      params.set('topic', topic);
    }
    if (zoom) {
      params.set('from', zoom.from);
      params.set('to', zoom.to);
    } else {
      params.set('span', span);
    }
    status.textContent = 'connecting…';
    close = stream('timeline/stream?' + params, (name, data) => {
      if (name === 'timeline') {
        status.textContent = 'live · ' + data.pending.toLocaleString() + ' pending';
        chart.update(data);
      } else if (name === 'error') {
        status.textContent = 'reconnecting…';
      }
    }, (e) => { status.textContent = e.message; });
  }
  open();
  const redraw = () => chart.draw();
  window.addEventListener('resize', redraw);
  return () => {
    window.removeEventListener('resize', redraw);
    if (close) {
      close();
    }
  };
}

export async function showTimeline(main, topic) {
  const topics = await get('topics');
  const select = el('select', { id: 'timeline-topic', onchange: (e) => {
    location.hash = e.target.value ? '#/timeline/' + e.target.value : '#/timeline';
  } }, el('option', { value: '' }, 'All topics, stacked'),
  topics.topics.map((t) => el('option', { value: t.name, selected: t.name === topic }, t.name)));
  main.append(el('h1', {}, 'Timeline'), el('div', { className: 'controls' }, el('label', {}, 'Topic ', select)),
    el('p', { className: 'muted' }, 'Messages due per interval from now; overdue (due, not yet acked) apart on the '
      + 'left. Drag across the bars to zoom.'));
  const box = el('div', { id: 'timeline' });
  main.append(box);
  return liveTimeline(box, topic);
}
