// The Actions page: each admin call by hand, confirmed first. Only the actions the token may take on some topic
// are offered, and each form lists only the topics it may take them on.
import { del, get, post } from './api.js';
import { act, el, toast } from './ui.js';
import { parseWhen } from './when.js';

function topicSelect(topics, id) {
  return el('select', { name: 'topic', id }, topics.map((t) => el('option', { value: t }, t)));
}

function form(id, title, fields, label, run) {
  const f = el('form', { className: 'action', id }, el('strong', {}, title), fields,
    el('button', { type: 'submit', className: 'danger' }, label));
  f.addEventListener('submit', (e) => {
    e.preventDefault();
    try {
      run(f);
    } catch (err) {
      toast(err.message, true);
    }
  });
  return f;
}

const value = (f, name) => f.elements[name].value.trim();

function target(f) {
  const t = value(f, 'target');
  if (!t) {
    throw new Error('give a message id or key');
  }
  return /^[0-9a-f]{32}$/.test(t) ? { id: t } : { key: t };
}

export async function showActions(main) {
  const topics = (await get('topics')).topics;
  const admin = topics.filter((t) => t.admin).map((t) => t.name);
  const produce = topics.filter((t) => t.produce).map((t) => t.name);
  const grid = el('div', { className: 'actions-grid' });
  const output = el('div', { id: 'action-output' });
  main.append(el('h1', {}, 'Actions'), el('p', { className: 'muted' }, 'Each action is the Admin API\'s call of the '
    + 'same name (cancel: the Producer\'s), asked to confirm first.'), grid, output);
  if (admin.length > 0) {
    grid.append(
      form('form-reschedule', 'Reschedule a message', [el('label', {}, 'Topic', topicSelect(admin)),
        el('label', {}, 'Message id or key', el('input', { name: 'target' })),
        el('label', {}, 'To (now, 30s, 5m, 2h, 1d, or a date)', el('input', { name: 'when', value: 'now' }))],
      'Reschedule', (f) => {
        const body = Object.assign(target(f), parseWhen(value(f, 'when')));
        act('Reschedule ' + (body.id || body.key) + ' on ' + value(f, 'topic') + '?',
          () => post('topics/' + value(f, 'topic') + '/reschedule', body),
          (r) => 'moved: due ' + new Date(r.dueMs).toLocaleString() + ', id ' + r.id);
      }),
      form('form-read', 'Read a message or dead letter', [el('label', {}, 'Topic', topicSelect(admin)),
        el('label', {}, 'Message id or key', el('input', { name: 'target' }))], 'Read', async (f) => {
        const t = target(f);
        try {
          const m = await get('topics/' + value(f, 'topic') + '/messages/' + (t.id || '') + (t.key
            ? '?key=' + encodeURIComponent(t.key) : ''));
          output.innerHTML = '';
          output.append(el('h2', {}, 'Message ' + m.id), el('pre', { className: 'payload', id: 'read-message' },
            JSON.stringify(m, null, 2)));
        } catch (e) {
          toast(e.message, true);
        }
      }),
      form('form-purge', 'Purge a topic', [el('label', {}, 'Topic', topicSelect(admin))], 'Purge', (f) =>
        act('Purge ' + value(f, 'topic') + '? Every message stored before now is deleted.',
          () => post('topics/' + value(f, 'topic') + '/purge'), (r) => 'purged ' + r.removed + ' messages')),
      form('form-delete-group', 'Delete a group', [el('label', {}, 'Topic', topicSelect(admin)),
        el('label', {}, 'Group', el('input', { name: 'group' }))], 'Delete group', (f) =>
        act('Delete group ' + value(f, 'group') + ' of ' + value(f, 'topic') + '?',
          () => del('topics/' + value(f, 'topic') + '/groups/' + value(f, 'group')), () => 'group deleted')),
      form('form-delete-topic', 'Delete a topic', [el('label', {}, 'Topic', topicSelect(admin))], 'Delete topic',
        (f) => act('Delete ' + value(f, 'topic') + ' with its messages and groups?',
          () => del('topics/' + value(f, 'topic')), (r) => 'deleted, with ' + r.removed + ' messages')));
  } else {
    main.append(el('p', { className: 'muted', id: 'no-admin' }, 'This token may not administer any topic.'));
  }
  if (produce.length > 0) {
    grid.append(form('form-cancel', 'Cancel a message by key', [el('label', {}, 'Topic', topicSelect(produce)),
      el('label', {}, 'Key', el('input', { name: 'key' }))], 'Cancel', (f) =>
      act('Cancel ' + value(f, 'key') + ' on ' + value(f, 'topic') + '?',
        () => post('topics/' + value(f, 'topic') + '/cancel', { key: value(f, 'key') }),
        (r) => r.existed ? 'cancelled' : 'not pending')));
  }
}
