/**
 * The side panels (History, Tracker) and their toolbar buttons: a button shows or hides its panel
 * (aria-expanded), and Escape closes one: the panel that holds the focus, whose button then takes
 * it, or else the panel opened last, the focus staying where it is (in the editor, say).
 */
import h from "crelt";

export interface PanelSpec {
  label: string;
  element: HTMLElement;
  /** Shown when the page opens. */
  open?: boolean;
  shown?(): void;
  hidden?(): void;
}

/** The buttons, in the order of `specs`; `onChange` hears how many panels are open after each change. */
export function panelToggles(specs: readonly PanelSpec[], onChange?: (open: number) => void): HTMLButtonElement[] {
  const opened: PanelSpec[] = [];
  const buttons = new Map<PanelSpec, HTMLButtonElement>();

  const set = (spec: PanelSpec, open: boolean) => {
    spec.element.hidden = !open;
    buttons.get(spec)?.setAttribute("aria-expanded", String(open));
    const at = opened.indexOf(spec);
    if (at >= 0) opened.splice(at, 1);
    if (open) {
      opened.push(spec);
      spec.shown?.();
    } else {
      spec.hidden?.();
    }
    onChange?.(opened.length);
  };

  for (const [index, spec] of specs.entries()) {
    spec.element.id ||= `panel-${index}`;
    const button = h("button", { type: "button", class: "secondary", "aria-expanded": "false", "aria-controls": spec.element.id }, spec.label);
    button.addEventListener("click", () => {
      const open = spec.element.hidden;
      set(spec, open);
      // Opened by a key or a click, the panel's heading takes the focus, so the reader is there.
      if (open) spec.element.querySelector<HTMLElement>("h2")?.focus();
    });
    buttons.set(spec, button);
    set(spec, spec.open === true);
  }

  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || event.defaultPrevented) return;
    const focus = document.activeElement;
    const holding = opened.find((spec) => spec.element.contains(focus) || buttons.get(spec) === focus);
    const spec = holding ?? opened.at(-1);
    if (!spec) return;
    event.preventDefault();
    set(spec, false);
    if (holding) buttons.get(spec)?.focus();
  });
  return [...buttons.values()];
}
