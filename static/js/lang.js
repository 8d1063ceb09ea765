// The language menu in the header applies a choice at once (without JavaScript, its button).
document.querySelectorAll("form.lang select").forEach((select) => {
  select.addEventListener("change", () => select.form.submit());
});
