// Refusals and reality checks as modal dialogs (native <dialog>); the text goes in the
// `message` hook. ask() resolves with the button the player chose.

const $ = (id) => document.getElementById(id);

export function ask(title, text, choices) {
  const dialog = $("dialog");
  $("dialog-title").textContent = title;
  $("dialog-text").textContent = text;
  const buttons = $("dialog-buttons");
  return new Promise((resolve) => {
    buttons.replaceChildren(...choices.map(([label, value, quiet]) => {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = label;
      if (quiet) button.className = "quiet";
      button.addEventListener("click", () => { dialog.close(); resolve(value); });
      return button;
    }));
    dialog.addEventListener("cancel", () => resolve(null), { once: true });
    if (!dialog.open) dialog.showModal();
  });
}

export function refuse(error) {
  return ask("Not played", error.message + " (" + error.code + ")", [["OK", true]]);
}

export function openPanel(id) {
  const dialog = $(id);
  if (!dialog.open) dialog.showModal();
}
