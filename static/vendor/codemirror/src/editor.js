// The draft editor: CodeMirror 6 over each <textarea data-code-editor>. The textarea stays in the form
// (hidden) and receives every change with an "input" event, so the htmx autosave and the plain form
// post work as before; without JavaScript the textarea is the editor.
import { EditorView, basicSetup } from "codemirror";
import { yaml } from "@codemirror/lang-yaml";
import { StateEffect, StateField } from "@codemirror/state";
import { Decoration } from "@codemirror/view";

const setErrorLine = StateEffect.define();
const errorLine = StateField.define({
  create: () => Decoration.none,
  update(marks, tr) {
    marks = marks.map(tr.changes);
    for (const e of tr.effects) {
      if (!e.is(setErrorLine)) continue;
      if (!e.value || e.value > tr.state.doc.lines) return Decoration.none;
      const line = tr.state.doc.line(e.value);
      marks = Decoration.set([Decoration.line({ class: "cm-error-line", attributes: { title: "The engine's error is on this line" } }).range(line.from)]);
    }
    return marks;
  },
  provide: (f) => EditorView.decorations.from(f),
});

function upgrade(textarea) {
  const view = new EditorView({
    doc: textarea.value,
    extensions: [
      basicSetup, yaml(), errorLine,
      // tabindex: the same single tab stop, said out loud, so checkers see the scrolled box is reachable
      EditorView.contentAttributes.of({ tabindex: "0", "aria-label": textarea.labels && textarea.labels[0] ? textarea.labels[0].textContent : "YAML" }),
      EditorView.updateListener.of((update) => {
        if (!update.docChanged) return;
        textarea.value = update.state.doc.toString();
        textarea.dispatchEvent(new Event("input", { bubbles: true }));
      }),
    ],
  });
  textarea.hidden = true;
  textarea.after(view.dom);
  textarea.codeEditor = view;
  return view;
}

// the engine's error: mark its line in the editor it names.
function markError() {
  const check = document.getElementById("editor-check");
  document.querySelectorAll("textarea[data-code-editor]").forEach((textarea) => {
    const view = textarea.codeEditor;
    if (!view || !check) return;
    const wrong = check.classList.contains("bad") && (check.getAttribute("data-input") || "manifests") === textarea.name;
    // the line the message cites, or the line of the object and field it names (data-line, from the server)
    const cited = check.getAttribute("data-line");
    const found = wrong ? (cited ? [cited, cited] : /\bline (\d+)/.exec(check.textContent)) : null;
    view.dispatch({ effects: setErrorLine.of(found ? Number(found[1]) : 0) });
  });
}

function start() {
  document.querySelectorAll("textarea[data-code-editor]").forEach((t) => { if (!t.codeEditor) upgrade(t); });
  markError();
}
document.addEventListener("DOMContentLoaded", start);
document.addEventListener("htmx:afterSettle", start);
