import { LabIcon } from '@jupyterlab/ui-components';

import symactSvg from '../style/icons/symact.svg';

/** The symnb icon: a sigmoid curve. */
export const symactIcon = new LabIcon({ name: 'symnb:symact', svgstr: symactSvg });
