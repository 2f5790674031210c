// The automation form (admin console): shows only the fields of the chosen trigger and action.
// Without it every field is shown, each group saying when it is used; the server reads only the
// chosen action's fields either way. Served as a file: the Content-Security-Policy allows no inline script.
(function () {
  'use strict';
  const form = document.querySelector('form[data-automation-form]');
  if (!form) return;
  const chosen = (name) => {
    const input = form.querySelector('input[name="' + name + '"]:checked');
    return input ? input.value : '';
  };
  function sync() {
    const trigger = chosen('trigger');
    const action = chosen('action');
    for (const group of form.querySelectorAll('[data-trigger-fields]')) {
      const on = group.getAttribute('data-trigger-fields') === trigger;
      group.hidden = !on;
      group.disabled = !on;
    }
    for (const group of form.querySelectorAll('[data-action-fields]')) {
      const on = group.getAttribute('data-action-fields') === action;
      group.hidden = !on;
      group.disabled = !on;
    }
  }
  form.classList.add('scripted');
  form.addEventListener('change', (event) => {
    if (event.target && (event.target.name === 'trigger' || event.target.name === 'action')) sync();
  });
  sync();
})();
