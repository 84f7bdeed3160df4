/** @jsxImportSource preact */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** Renders `element` into `target` (the page's `#root` unless given). */
const mount = (element, target = document.getElementById('root')) => render(element, target);

/** A text field's per-keystroke handler: Preact uses the DOM's `input` event. */
const typing = (handler) => ({ onInput: handler });

