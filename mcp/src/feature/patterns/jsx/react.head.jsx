import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';

/** Renders `element` into `target` (the page's `#root` unless given). */
const mount = (element, target = document.getElementById('root')) => createRoot(target).render(element);

/** A text field's per-keystroke handler: React calls it `onChange`. */
const typing = (handler) => ({ onChange: handler });

