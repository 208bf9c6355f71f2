// The scope chooser, used by the Create form and the Edit scope dialog: three kinds as radio
// buttons, narrowest first, each with the select it needs. Options come from scope-options.ts
// (the public route table). Only the chosen kind's select is enabled.
import type { Scope } from './api-types.ts';
import { h } from './dom.ts';
import { defaultScope, ROUTE_OPTIONS, routeOptionOf, scopeOfChoice, TOOLKITS } from './scope-options.ts';

export interface ScopeFieldset {
  element: HTMLFieldSetElement;
  /** The chosen scope; undefined only if the page's options were tampered with. */
  read(): Scope | undefined;
  set(scope: Scope): void;
}

const KINDS: ReadonlyArray<{ kind: Scope['kind']; label: string; hint: string }> = [
  { kind: 'route', label: 'One route', hint: 'narrowest, recommended: exactly one method and path' },
  { kind: 'toolkit', label: 'One toolkit', hint: 'every keyed route of one toolkit' },
  {
    kind: 'product',
    label: 'Whole product',
    hint: 'every route of every toolkit, including ones added later',
  },
];

export function createScopeFieldset(prefix: string): ScopeFieldset {
  const routeSelect = h(
    'select',
    { id: `${prefix}-route` },
    ...TOOLKITS.map((toolkit) =>
      h(
        'optgroup',
        { label: toolkit },
        ...ROUTE_OPTIONS.filter((o) => o.toolkit === toolkit).map((o) =>
          h('option', { value: o.value }, o.label),
        ),
      ),
    ),
  );
  const toolkitSelect = h(
    'select',
    { id: `${prefix}-toolkit` },
    ...TOOLKITS.map((t) => h('option', { value: t }, t)),
  );
  const selects: Partial<Record<Scope['kind'], HTMLSelectElement>> = {
    route: routeSelect,
    toolkit: toolkitSelect,
  };
  const radios = new Map<Scope['kind'], HTMLInputElement>();

  const element = h(
    'fieldset',
    { class: 'scope' },
    h('legend', {}, 'Scope: what the key opens'),
    ...KINDS.map(({ kind, label, hint }) => {
      const id = `${prefix}-kind-${kind}`;
      const radio = h('input', {
        type: 'radio',
        name: `${prefix}-kind`,
        id,
        value: kind,
        'aria-describedby': `${id}-hint`,
      });
      radios.set(kind, radio);
      const select = selects[kind];
      return h(
        'div',
        { class: 'choice' },
        radio,
        h('label', { for: id }, label),
        h('p', { class: 'hint', id: `${id}-hint` }, hint),
        select &&
          h(
            'div',
            { class: 'sub-field' },
            h('label', { for: select.id }, kind === 'route' ? 'Route' : 'Toolkit'),
            select,
          ),
      );
    }),
  );

  const chosenKind = (): Scope['kind'] =>
    KINDS.find(({ kind }) => radios.get(kind)?.checked)?.kind ?? 'route';
  const syncEnabled = () => {
    const kind = chosenKind();
    routeSelect.disabled = kind !== 'route';
    toolkitSelect.disabled = kind !== 'toolkit';
  };
  for (const radio of radios.values()) radio.addEventListener('change', syncEnabled);

  function set(scope: Scope): void {
    radios.get(scope.kind)!.checked = true;
    if (scope.kind !== 'product') toolkitSelect.value = scope.toolkit;
    // The route select keeps a sensible choice for when the user narrows the scope later.
    const route =
      routeOptionOf(scope) ??
      ROUTE_OPTIONS.find((o) => scope.kind === 'toolkit' && o.toolkit === scope.toolkit) ??
      ROUTE_OPTIONS[0]!;
    routeSelect.value = route.value;
    syncEnabled();
  }
  set(defaultScope());

  return {
    element,
    read: () => scopeOfChoice(chosenKind(), toolkitSelect.value, routeSelect.value),
    set,
  };
}
