// The Overview page: nodes, Raft leader, totals, delivery rate and lateness, version and the settings that matter.
// Read again every 5 s while it is open; the delivery rate is the change in deliveries between two reads.
import { get } from './api.js';
import { card, el, num, table } from './ui.js';

const REFRESH_MS = 5000;

export async function showOverview(page) {
  let previous = null;
  let timer = null;
  async function render() {
    const [o, topics] = await Promise.all([get('overview'), get('topics')]);
    const now = Date.now();
    const rows = topics.topics.filter((t) => t.deliveries !== undefined);
    const deliveries = rows.reduce((sum, t) => sum + t.deliveries, 0);
    const p99 = rows.reduce((max, t) => Math.max(max, t.latenessP99Us), 0);
    const rate = previous && deliveries >= previous.deliveries
      ? ((deliveries - previous.deliveries) / ((now - previous.at) / 1000)).toFixed(1) : '…';
    previous = { deliveries, at: now };
    const t = o.totals;
    const shards = o.raft && o.raft.logShards ? o.raft.logShards : [];
    // With several log shards a node leads some of their Raft groups and follows in the others.
    const role = (nodeId) => {
      if (!o.raft) return 'standalone';
      if (shards.length > 1) {
        const led = shards.filter((s) => s.leaderId === nodeId).map((s) => s.shard);
        return led.length ? 'leads log shard' + (led.length > 1 ? 's ' : ' ') + led.join(', ') : 'follower';
      }
      return o.raft.leaderId === nodeId ? 'Raft leader' : 'follower';
    };
    page.replaceChildren(el('h1', {}, 'Overview'),
      el('div', { className: 'cards' },
        card('Pending messages', num(t.pending), 'total-pending'),
        card('Due in the next minute', num(t.dueNextMinute), 'total-next-minute'),
        card('Overdue (due, not yet acked)', num(t.overdue), 'total-overdue'),
        card('Delivered/s (first deliveries)', rate, 'delivered-rate'),
        card('Lateness p99 (worst group)', deliveries > 0 ? (p99 / 1000).toFixed(1) + ' ms' : '-', 'lateness-p99'),
        card('Topics', num(t.topics), 'total-topics'),
        card('Mode', o.mode + (!o.raft ? '' : shards.length > 1 ? ' · ' + shards.length + ' log shards'
          : ' · Raft leader ' + (o.raft.leaderId || 'none')), 'mode'),
        card('Version', o.version, 'version')),
      el('h2', {}, 'Nodes'),
      table('nodes', ['Node', 'Role', 'Status', 'Reachable', 'Address', 'gRPC', { label: 'Topics hosted', num: true }],
        o.members.map((m) => el('tr', {},
          el('td', {}, m.nodeId + (m.self ? ' (this node)' : '')),
          el('td', {}, role(m.nodeId)),
          el('td', {}, m.status), el('td', {}, m.reachable ? 'yes' : 'no'), el('td', {}, m.address),
          el('td', {}, m.grpcAddress), el('td', { className: 'num' }, num(m.topics))))),
      el('h2', {}, 'Settings'),
      table('settings', ['Setting', 'Value'], Object.entries(o.settings).map(([k, v]) =>
        el('tr', {}, el('td', {}, el('code', {}, k)), el('td', {}, String(v))))),
      el('p', { className: 'muted' }, 'Storage: ' + o.storage + '. Delivery rate and lateness cover the groups of '
        + 'the first 50 topics this token administers; the Prometheus metrics have every one.'));
  }
  await render();
  timer = setInterval(() => { render().catch(() => {}); }, REFRESH_MS);
  return () => clearInterval(timer);
}
