// Posts a form marked data-autosubmit as soon as the page loads (the deep linking response to
// the platform). The form's own button stays for a browser without scripts.
document.addEventListener("DOMContentLoaded", () => {
  const form = document.querySelector("form[data-autosubmit]");
  if (form) {
    form.submit();
  }
});
